/**
 * energy-rental-kit: the typed client and the models of the Energy Rental API.
 *
 * @example
 *   import { createClient } from 'energy-rental-kit';
 *   const client = createClient({ baseUrl: 'https://api.eopen.io/api', apiKey: process.env.API_KEY });
 */
export * from './client/index.ts';
export type * from './models.ts';
