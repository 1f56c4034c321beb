/**
 * Where each operation lives, and the request and response types of each, all read
 * from the generated `paths`. The `satisfies` clause ties every entry to `paths`, so a
 * path or method that changes in the spec breaks the build here, not at run time.
 */
import type { OperationId, operations, paths } from '../models.ts';

type Method = 'get' | 'post';

/** The `[method, path]` pairs of `paths` whose operation is `operations[Id]`. */
type RouteOf<Id extends OperationId> = {
  [P in keyof paths]: {
    [M in Method]: paths[P][M] extends operations[Id] ? readonly [M, P] : never;
  }[Method];
}[keyof paths];

export const ROUTES = {
  createOrder: ['post', '/v1/tron/order'],
  getPrice: ['get', '/v1/tron/price'],
  getOrderHistory: ['get', '/v1/tron/history'],
  getAccount: ['get', '/v1/account'],
} as const satisfies { [Id in OperationId]: RouteOf<Id> };

type Routes = typeof ROUTES;

/** The generated operation behind an operationId, looked up through `paths`. */
export type Operation<Id extends OperationId> = NonNullable<paths[Routes[Id][1]][Routes[Id][0]]>;

/** The query parameters of an operation. */
export type QueryOf<Id extends OperationId> = Operation<Id>['parameters']['query'];

// Distributes over `body | undefined`, so an operation without a body gives `never`.
type FormBody<Body> = Body extends { content: { 'application/x-www-form-urlencoded': infer Form } }
  ? Form
  : never;

/** The form body of an operation, `never` when it takes none. */
export type FormOf<Id extends OperationId> = FormBody<Operation<Id>['requestBody']>;

/** The `data` of an operation's successful envelope. */
export type DataOf<Id extends OperationId> =
  Operation<Id>['responses'][200]['content']['application/json']['data'];
