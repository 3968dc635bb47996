/**
 * The model behind `/tsuka model`, observed: every generation's time (from the request to its
 * last part, the queue's wait included), its tokens as the server reported them, and the run it
 * was made for. The model keeps everything else it offers (queue position, waiting count).
 */
import type { ModelControl } from '../../commands/command-dependencies.js';
import type { LanguageModel, ModelRequest, ModelStreamPart } from '../../core/model/language-model.js';
import type { TelemetrySink } from './telemetry-sink.js';

export function observeModel<M extends LanguageModel>(model: M, sink: TelemetrySink, runId: () => string | undefined): M {
  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const startedAt = Date.now();
    const run = runId();
    let promptTokens = 0;
    let completionTokens = 0;
    let outcome = 'error';
    try {
      for await (const part of model.stream(request)) {
        if (part.type === 'usage') {
          promptTokens += part.usage.promptTokens;
          completionTokens += part.usage.completionTokens;
        }
        yield part;
      }
      outcome = 'ok';
    } catch (error) {
      outcome = request.signal?.aborted ? 'aborted' : 'error';
      throw error;
    } finally {
      // A caller that stops reading early (`return()`) ends here too.
      if (outcome === 'error' && request.signal?.aborted) outcome = 'aborted';
      sink.modelCall({
        ...(run ? { runId: run } : {}),
        modelId: model.modelId,
        providerId: model.providerId,
        outcome,
        promptTokens,
        completionTokens,
        startedAt,
        endedAt: Date.now(),
      });
    }
  }
  return new Proxy(model, {
    get(target, property) {
      if (property === 'stream') return stream;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `models` whose current model is observed (one wrapper per model object). */
export function observeModelControl<C extends ModelControl>(models: C, sink: TelemetrySink, runId: () => string | undefined): C {
  const wrapped = new WeakMap<LanguageModel, LanguageModel>();
  const observed = (model: LanguageModel): LanguageModel => {
    let found = wrapped.get(model);
    if (!found) {
      found = observeModel(model, sink, runId);
      wrapped.set(model, found);
    }
    return found;
  };
  return new Proxy(models, {
    get(target, property) {
      if (property === 'current')
        return () => {
          const current = target.current();
          return current ? { ...current, model: observed(current.model) } : undefined;
        };
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
