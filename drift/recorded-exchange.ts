/** Reading a recorded exchange as calibration does. */
import { API_OPERATION_SPECS, type ApiOperationId } from '../src/generated/lists.ts';
import type { Interaction } from '../recording/recording.ts';

/** Where a calibrated value came from. */
export interface Evidence {
  operation: string;
  case: string;
  observed: string;
}

export type Body =
  | { code?: unknown; msg?: unknown; time?: unknown; data?: Record<string, unknown> | null }
  | undefined;

/** A path without the real service's /api prefix. */
export const apiPath = (path: string): string => (path.startsWith('/api/') ? path.slice(4) : path);

/** The JSON object body of an answer, or undefined. */
export const bodyOf = (i: Interaction): Body =>
  typeof i.response?.body === 'object' && i.response.body !== null ? (i.response.body as Body) : undefined;

/** Every parameter sent, the form body's over the query's. */
export const paramsOf = (i: Interaction): Record<string, string> => {
  const all: Record<string, string> = {};
  for (const source of [i.request.query, i.request.form ?? {}])
    for (const [name, value] of Object.entries(source))
      if (value !== undefined) all[name] = Array.isArray(value) ? String(value[0]) : String(value);
  return all;
};

/** A parameter as sent, from the form body or the query. */
export const param = (i: Interaction, name: string): string | undefined => paramsOf(i)[name];

/** The API operation a request was sent to, by its path and method. */
export const operationOf = (i: Interaction): (typeof API_OPERATION_SPECS)[ApiOperationId] | undefined =>
  Object.values(API_OPERATION_SPECS).find(
    (o) => o.path === apiPath(i.request.path) && o.method === i.request.method,
  );

/** Whether a request was sent to an operation's path with its method. */
export const sentTo = (i: Interaction, id: ApiOperationId): boolean => operationOf(i)?.operationId === id;

/** Whether an answer is a documented success: code 0, or the account's code 1 with a success message. */
export function isSuccess(i: Interaction): boolean {
  const body = bodyOf(i);
  if (!i.response || i.response.status >= 300 || !body) return false;
  return (
    body.code === 0 ||
    (sentTo(i, 'getAccount') && body.code === 1 && typeof body.msg === 'string' && /success/i.test(body.msg))
  );
}

/** The evidence an exchange gives for a value. */
export const evidence = (i: Interaction, observed: string): Evidence => ({
  operation: i.operation,
  case: i.case,
  observed,
});
