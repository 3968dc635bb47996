/** Runs every benchmark in turn; each prints its own figures. */
await import('./store-bench.js');
await import('./slack-stream-bench.js');
await import('./mcp-bench.js');
