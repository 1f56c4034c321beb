/**
 * Friendly names for the models openapi-typescript generated from `spec/openapi.yaml`.
 *
 * @example
 *   import type { Order, Period } from 'energy-rental-kit/models';
 *   const period: Period = '1h';
 */
import type { components, operations, paths } from './generated/openapi.ts';

type Schemas = components['schemas'];

export type { components, operations, paths };
export type Period = Schemas['Period'];
export type OrderStatus = Schemas['OrderStatus'];
export type Currency = Schemas['Currency'];
export type ResourceType = Schemas['ResourceType'];
export type TronAddress = Schemas['TronAddress'];
export type OrderId = Schemas['OrderId'];
export type OutOrderNo = Schemas['OutOrderNo'];
export type DecimalString = Schemas['DecimalString'];
export type OrderRequest = Schemas['OrderRequest'];
export type OrderCreated = Schemas['OrderCreated'];
export type PriceQuote = Schemas['PriceQuote'];
export type Order = Schemas['Order'];
export type Balance = Schemas['Balance'];
export type Account = Schemas['Account'];
export type Envelope = Schemas['Envelope'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type PriceQuery = NonNullable<operations['getPrice']['parameters']['query']>;
export type HistoryQuery = NonNullable<operations['getOrderHistory']['parameters']['query']>;
export type OperationId = keyof operations;
