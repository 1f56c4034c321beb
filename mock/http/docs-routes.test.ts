/**
 * The documents /docs serves name this simulator as the relative server `/` and never
 * reflect the request's Host.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';

describe('GET /docs/openapi.json and /docs/control.json', () => {
  it.each(['/docs/openapi.json', '/docs/control.json'])(
    '%s names the simulator as "/" whatever the Host header says',
    async (path) => {
      const sim = createSimulator({ clock: 'manual' });
      const res = await sim.app.request(`http://evil.example:666${path}`, {
        headers: { host: 'evil.example:666' },
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain('evil.example');
      const document = JSON.parse(text) as { servers: { url: string }[] };
      expect(document.servers[0]!.url).toBe('/');
    },
  );
});
