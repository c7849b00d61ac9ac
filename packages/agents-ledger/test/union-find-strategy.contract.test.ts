import { createUnionFindStrategy } from '../src/index.ts';
import { runStrategyContract } from './strategy-contract.ts';

runStrategyContract({ create: () => createUnionFindStrategy() });
