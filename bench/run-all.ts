/** Runs every benchmark in turn; each prints its own figures. */
await import('./cli-startup-bench.js');
await import('./agent-round-bench.js');
await import('./concurrent-runs-bench.js');
await import('./slack-concurrent-runs-bench.js');
await import('./memory-bench.js');
await import('./store-bench.js');
await import('./sandbox-bench.js');
await import('./secret-mask-bench.js');
await import('./slack-reply-bench.js');
await import('./slack-streaming-bench.js');
await import('./mcp-bench.js');
await import('./model-servers-bench.js');
await import('./replicas-bench.js');
await import('./pdf-text-bench.js');
await import('./mcp-mute-ask-bench.js');
await import('./staging-bench.js');
