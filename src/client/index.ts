/**
 * The typed client of the Energy Rental API.
 *
 * @example
 *   import { createClient, EnergyRentalError } from './client/index.ts';
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: 'demo-key' });
 */
export { createClient } from './create-client.ts';
export type { ClientOptions, EnergyRentalClient } from './create-client.ts';
export { EnergyRentalError } from './energy-rental-error.ts';
export type { EnergyRentalErrorDetails, EnergyRentalErrorKind } from './energy-rental-error.ts';
export type { Exchange } from './exchange.ts';
export { POLLING_CLOCK, TERMINAL_STATUSES } from './wait-for-order.ts';
export type { OrderRef, PollingClock, WaitForOrderOptions } from './wait-for-order.ts';
export type { WaitForEnergyOptions } from './wait-for-energy.ts';
