import type { AppConfig } from '../config/app-config.js';

/**
 * What to tell a person when no model server answers. A configured endpoint is binding, so the
 * message names it (one line); without one, the commands to start a local server. TSUKA keeps
 * probing (`probeIntervalMs`), so "ask again" works once a server is up.
 */
export function noModelMessage(config: AppConfig, probeIntervalMs?: number): string {
  const retry =
    probeIntervalMs === undefined ? '' : ` TSUKA tries again every ${Math.round(probeIntervalMs / 1000)} s and at every message: start it, then ask again.`;
  if (config.llm.baseURLs.length > 1)
    return `None of the model servers ${config.llm.baseURLs.join(', ')} (TSUKA_LLM_BASE_URL) answers.${retry || ' Start one, or change TSUKA_LLM_BASE_URL.'}`;
  if (config.llm.baseURL)
    return `The model server ${config.llm.baseURL} (TSUKA_LLM_BASE_URL) does not answer.${retry || ' Start it, or change TSUKA_LLM_BASE_URL.'}`;
  return [
    'No model server answered on the usual local ports.',
    `Start one of these${probeIntervalMs === undefined ? ', then try again' : ' — TSUKA finds it within seconds, then ask again'}:`,
    '  Ollama:       ollama serve & ollama pull qwen2.5-coder:7b',
    '  llama.cpp:    llama-server -m model.gguf --port 8080 --jinja',
    '  LM Studio:    lms server start (and load a model)',
    '  vLLM:         vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --port 8000',
    `or set TSUKA_LLM_BASE_URL (and TSUKA_LLM_MODEL, TSUKA_LLM_API_KEY) to any OpenAI-compatible endpoint${probeIntervalMs === undefined ? '' : ' and restart TSUKA (settings are read at start)'}; a cloud provider such as OpenRouter is used only when TSUKA_LLM_BASE_URL points at it.`,
  ].join('\n');
}
