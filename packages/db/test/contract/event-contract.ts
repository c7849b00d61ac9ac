// Placeholder: the event part of the store contract, written with the port of this area.
import type { StoreUnderTest } from '../store-contract.ts';

export function eventContract(_subject: StoreUnderTest): void {}
