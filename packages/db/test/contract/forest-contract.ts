// Placeholder: the forest part of the store contract, written with the port of this area.
import type { StoreUnderTest } from '../store-contract.ts';

export function forestContract(_subject: StoreUnderTest): void {}
