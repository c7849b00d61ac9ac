export type { MainIo } from './main.ts';
export { main } from './main.ts';
