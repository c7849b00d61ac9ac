// Placeholder: the search part of the store contract, written with the port of this area.
import type { StoreUnderTest } from '../store-contract.ts';

export function searchContract(_subject: StoreUnderTest): void {}
