// The symbol `using` calls at the end of a block. Node 20 has it as
// Symbol.for('nodejs.dispose') under Symbol.dispose in recent releases; older
// engines lack Symbol.dispose, and then the registered symbol is the one
// their `using` (if any) would look for.
export const DISPOSE = Symbol.dispose ?? Symbol.for('nodejs.dispose');
