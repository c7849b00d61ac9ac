import { runStrategyContract } from './strategy-contract.ts';

runStrategyContract('flat');
