export declare function importsOf(text: string): string[];
export interface ImportCycle {
  /** Every module of the strongly connected component, sorted. */
  readonly members: string[];
  /** The shortest cycle through the first member: a path that ends where it starts. */
  readonly cycle: string[];
}
export declare function findCycles(graph: ReadonlyMap<string, readonly string[]>): ImportCycle[];
export declare function importGraph(root?: string): Map<string, string[]>;
