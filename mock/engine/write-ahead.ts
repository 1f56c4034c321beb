/**
 * No effect without its acknowledgement: a change asked for goes to the writer whole; refused, the engine
 * puts back what a restart would read and throws. What time makes is appended.
 */
import type { EngineEffect } from './effects.ts';
import type { EffectWriter } from './engine-types.ts';
import type { EngineSnapshot } from './snapshot.ts';

/** What the engine lends. */
interface EngineHooks {
  tell(effect: EngineEffect): void;
  restore(saved: EngineSnapshot | undefined, effects: readonly EngineEffect[]): void;
  runDue(): void;
}

/**
 * The write-ahead of one engine.
 *
 * @example
 *   const ahead = createWriteAhead({ tell, restore, runDue });
 *   engine.createOrder = ahead.written(engine.createOrder);
 */
export function createWriteAhead(engine: EngineHooks) {
  let writer: EffectWriter | undefined;
  let held: EngineEffect[] | undefined;

  /** Puts back what a restart would read; an engine that cannot keeps the change, unacknowledged. */
  const putBack = (to: EffectWriter, effects: EngineEffect[]): void => {
    let back;
    try {
      back = to.readBack();
    } catch (error) {
      for (const effect of effects) to.append(effect);
      throw error;
    }
    held = [];
    try {
      engine.restore(back.saved, back.effects);
    } finally {
      held = undefined;
    }
    engine.runDue();
  };

  return {
    set(to: EffectWriter | undefined): void {
      writer = to;
    },
    get writing(): boolean {
      return writer !== undefined;
    },
    /** An effect as the engine makes it: held during a change asked for, else appended and told. */
    take(effect: EngineEffect): void {
      if (held) return void held.push(effect);
      writer?.append(effect);
      engine.tell(effect);
    },
    /** `make`, a change asked for, made so that it counts only once written. */
    written<F extends (...args: never[]) => unknown>(make: F): F {
      return ((...args: Parameters<F>) => {
        const to = writer;
        if (!to || held) return make(...args);
        held = [];
        let made: { result: unknown } | { error: unknown };
        try {
          made = { result: make(...args) };
        } catch (error) {
          made = { error };
        }
        const effects = held;
        held = undefined;
        try {
          if (effects.length > 0) to.write(effects);
        } catch (error) {
          putBack(to, effects);
          throw error;
        }
        for (const effect of effects) engine.tell(effect);
        if ('error' in made) throw made.error;
        return made.result;
      }) as F;
    },
  };
}
