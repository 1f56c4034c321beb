export { startSimulator, type StartSimulatorOptions, type TestSimulator } from './start-simulator.ts';
export { expectCalls, CallCountError, type CallsTarget } from './expect-calls.ts';
export type { CallFilter, CallRow } from '../simulator.ts';
export { default as EnergyCoverageReporter, type CoverageReporterOptions } from './coverage-reporter.ts';
