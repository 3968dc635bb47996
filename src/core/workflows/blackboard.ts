/** A run's shared blackboard (`post_note` / `read_notes`): notes by key, visible to that run's members only. */

export interface BlackboardNote {
  key: string;
  value: string;
  author: string;
  at: number;
}

export interface Blackboard {
  post(note: { key: string; value: string; author: string }): BlackboardNote;
  /** Notes whose key starts with `prefix` (all when empty), in key order. */
  read(prefix?: string): BlackboardNote[];
}

/** Creates an empty blackboard; one per run, never shared between runs. */
export function createBlackboard(now: () => number = Date.now): Blackboard {
  const notes = new Map<string, BlackboardNote>();
  return {
    post({ key, value, author }) {
      const note = { key, value, author, at: now() };
      notes.set(key, note);
      return note;
    },
    read(prefix = '') {
      return [...notes.values()].filter((note) => note.key.startsWith(prefix)).sort((a, b) => a.key.localeCompare(b.key));
    },
  };
}
