/** Each operation's method and path (the generated lists) and its types (the generated `paths`). */
import { API_OPERATION_SPECS } from '../generated/lists.ts';
import type { OperationId, paths } from '../models.ts';

type Specs = typeof API_OPERATION_SPECS;

type Route<Id extends OperationId> = readonly [Lowercase<Specs[Id]['method']>, Specs[Id]['path']];

/** `[method, path]` of each operation, the method in the lower case `paths` uses. */
export const ROUTES = Object.fromEntries(
  Object.values(API_OPERATION_SPECS).map((op): [OperationId, Route<OperationId>] => [
    op.operationId,
    [op.method.toLowerCase() as Lowercase<typeof op.method>, op.path],
  ]),
) as { readonly [Id in OperationId]: Route<Id> };

type Routes = typeof ROUTES;

/** The generated operation behind an operationId, looked up through `paths`. */
export type Operation<Id extends OperationId> = NonNullable<paths[Routes[Id][1]][Routes[Id][0]]>;

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
