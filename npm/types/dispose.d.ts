// Types for executorch-pack, part of ../index.d.ts: what `[Symbol.dispose]`
// members need from the environment, declared here so that a project
// compiles without @types/node and with a lib older than esnext.disposable
// (`--lib es2022,dom --types ''`). The same declaration as TypeScript's
// lib.esnext.disposable and @types/node: the declarations merge.

interface SymbolConstructor {
  /** The method `using` calls at the end of its block (ECMAScript explicit resource management). */
  readonly dispose: unique symbol;
}
