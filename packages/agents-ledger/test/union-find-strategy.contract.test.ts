import { runStrategyContract } from './strategy-contract.ts';

runStrategyContract('union-find');
