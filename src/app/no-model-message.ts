import type { AppConfig } from '../config/app-config.js';

/** What to tell a person when no model server answered: the exact commands to start one. */
export function noModelMessage(config: AppConfig): string {
  const configured = config.llm.baseURL ? `The configured server ${config.llm.baseURL} did not answer, and no local server did either.` : 'No model server answered on the usual local ports.';
  return [
    configured,
    'Start one of these, then try again:',
    '  Ollama:       ollama serve & ollama pull qwen2.5-coder:7b',
    '  llama.cpp:    llama-server -m model.gguf --port 8080 --jinja',
    '  LM Studio:    lms server start (and load a model)',
    '  vLLM:         vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --port 8000',
    'or set TSUKA_LLM_BASE_URL (and TSUKA_LLM_MODEL, TSUKA_LLM_API_KEY) to any OpenAI-compatible endpoint.',
  ].join('\n');
}
