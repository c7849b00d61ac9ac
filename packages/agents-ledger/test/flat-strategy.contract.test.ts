import { createFlatStrategy } from '../src/index.ts';
import { runStrategyContract } from './strategy-contract.ts';

runStrategyContract({ create: createFlatStrategy, summarizerCallsPerCompaction: 1 });
