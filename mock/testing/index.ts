export { startSimulator, type StartSimulatorOptions, type TestSimulator } from './start-simulator.ts';
