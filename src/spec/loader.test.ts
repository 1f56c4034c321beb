import { describe, expect, it } from 'vitest';
import { API_OPERATION_SPECS } from '../generated/lists.ts';
import { createValidators, loadSpec } from './loader.ts';

describe('loadSpec', () => {
  it('lists the operations of the API with the methods and paths the generated lists hold', () => {
    const spec = loadSpec('api');
    expect(spec.operations.map((op) => `${op.method} ${op.path} ${op.operationId}`)).toEqual(
      Object.values(API_OPERATION_SPECS).map((op) => `${op.method} ${op.path} ${op.operationId}`),
    );
    expect(spec.operations.map((op) => op.operationId)).toContain('getAccount');
  });

  it('resolves component responses so every error status has a schema', () => {
    const op = loadSpec('api').operation('createOrder');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '402', '409', '429']);
    expect(op.responses['400']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
  });

  it('offers the query parameters and the form body of order creation', () => {
    const op = loadSpec('api').operation('createOrder');
    expect(op.parameters.map((p) => p.name)).toEqual([
      'pledgeAddress',
      'rentalCount',
      'period',
      'outOrderNo',
    ]);
    expect(op.formBodySchema).toEqual({ $ref: '#/components/schemas/OrderRequest' });
  });

  it('names the known operations when asked for an unknown one', () => {
    expect(() => loadSpec('api').operation('deleteEverything')).toThrow(
      `known: ${loadSpec('api')
        .operations.map((op) => op.operationId)
        .join(', ')}.`,
    );
  });

  it('loads the control-plane document too', () => {
    expect(loadSpec('control').operation('advanceClock').path).toBe('/_sim/clock/advance');
  });
});

describe('request validators', () => {
  const validators = createValidators(loadSpec('api'), { coerceTypes: true });

  it('coerce query strings to the types of the spec', () => {
    const params: Record<string, unknown> = { rentalCount: '65000', period: '1h' };
    expect(validators.request('getPrice')(params)).toBe(true);
    expect(params.rentalCount).toBe(65000);
  });

  it('require one of orderId and outOrderNo for the history, from x-required-one-of', () => {
    const validate = validators.request('getOrderHistory');
    expect(validate({})).toBe(false);
    expect(validate({ outOrderNo: 'a' })).toBe(true);
    expect(validate({ orderId: 'OR20250312175009BJ1QRQH7' })).toBe(true);
  });

  it('check the 64000 minimum, the period enum and the TRON address checksum of an order', () => {
    const validate = validators.request('createOrder');
    expect(
      validate({
        pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
        rentalCount: '64000',
        period: '10min',
      }),
    ).toBe(true);
    expect(
      validate({ pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4', rentalCount: '63999', period: '2h' }),
    ).toBe(false);
    expect(validate.errors!.map((e) => `${e.instancePath} ${e.keyword}`).sort()).toEqual([
      '/period enum',
      '/pledgeAddress format',
      '/rentalCount minimum',
    ]);
  });
});

describe('response validators', () => {
  const validators = createValidators(loadSpec('api'));

  it('accept every example of the document', () => {
    for (const op of loadSpec('api').operations) {
      const example = op.responses['200']!.content!['application/json']!.example;
      const validate = validators.response(op.operationId, 200)!;
      expect(validate(example), `${op.operationId}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('reject a number sent as a string, because they never coerce', () => {
    const validate = validators.response('getPrice', 200)!;
    const body = {
      code: 0,
      msg: 'ok',
      time: '1',
      data: { sun: '65', trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: '65000' },
    };
    expect(validate(body)).toBe(false);
    expect(validate.errors![0]).toMatchObject({ instancePath: '/data/rentalCount', keyword: 'type' });
  });

  it('use the error envelope for error statuses, which requires a non-zero code', () => {
    const validate = validators.response('getPrice', 400)!;
    expect(validate({ code: 20002, msg: 'bad', time: '1', data: null })).toBe(true);
    expect(validate({ code: 0, msg: 'bad', time: '1', data: null })).toBe(false);
  });

  it('compile each validator once and reuse it', () => {
    expect(validators.response('getPrice', 200)).toBe(validators.response('getPrice', 200));
  });

  it('answer each status with its own schema however often and in whatever order they are asked', () => {
    const fresh = createValidators(loadSpec('api'));
    const asked = [200, 400, 200, 599, 400, 404, 599, 200];
    const answers = asked.map((status) => fresh.response('getPrice', status));
    // 200 has its schema, 4xx the error envelope, 404 too (the document's 4XX or default), 599 none or the default.
    expect(answers[0]).toBe(answers[2]);
    expect(answers[1]).toBe(answers[4]);
    expect(answers[3]).toBe(answers[6]);
    expect(answers[0]).not.toBe(answers[1]);
    const ok = {
      code: 0,
      msg: 'ok',
      time: '1',
      data: { sun: '65', trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
    };
    expect(answers[7]!(ok)).toBe(true);
    expect(answers[4]!(ok)).toBe(false);
  });

  it('refuse an unknown operation every time it is asked for, not only the first', () => {
    expect(() => validators.response('noSuchOperation', 200)).toThrow(/noSuchOperation/);
    expect(() => validators.response('noSuchOperation', 200)).toThrow(/noSuchOperation/);
  });
});

describe('control-plane validators', () => {
  const validators = createValidators(loadSpec('control'));

  it('compile inline body schemas that refer to components', () => {
    expect(validators.jsonBody('setSupply')({ energy: null })).toBe(true);
    expect(validators.jsonBody('setAddress')({ activated: 'yes' })).toBe(false);
  });

  it('compile inline response schemas that refer to components', () => {
    const validate = validators.response('listRules', 200)!;
    expect(validate({ rules: [{ id: 'rule-1', match: {}, outcome: 'FAILED', used: 0 }] })).toBe(true);
    expect(validate({ rules: [{ id: 'rule-1', match: {}, outcome: 'MAYBE', used: 0 }] })).toBe(false);
  });
});
