/**
 * A model whose endpoint model can be replaced at run time (`/tsuka model <id>`), so that the queue
 * in front of it — one per endpoint — stays the same: runs started before and after a switch wait
 * in one line for the same GPU.
 */
import type { LanguageModel, ModelRequest, ModelStreamPart } from './language-model.js';

export interface SwitchableModel extends LanguageModel {
  switchTo(model: LanguageModel): void;
}

export function createSwitchableModel(initial: LanguageModel): SwitchableModel {
  let current = initial;
  return {
    get providerId() {
      return current.providerId;
    },
    get modelId() {
      return current.modelId;
    },
    get contextWindow() {
      return current.contextWindow;
    },
    switchTo(model) {
      current = model;
    },
    stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      return current.stream(request);
    },
  };
}
