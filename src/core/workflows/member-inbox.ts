/** Direct messages between one run's members (`send_message`): delivered at the start of the target's next turn. */

export interface InboxMessage {
  from: string;
  content: string;
}

export interface MemberInbox {
  send(message: { from: string; to: string; content: string }): void;
  /** Takes (and removes) the messages waiting for `member`. */
  take(member: string): InboxMessage[];
}

export function createMemberInbox(): MemberInbox {
  const waiting = new Map<string, InboxMessage[]>();
  return {
    send({ from, to, content }) {
      const list = waiting.get(to) ?? [];
      list.push({ from, content });
      waiting.set(to, list);
    },
    take(member) {
      const list = waiting.get(member) ?? [];
      waiting.delete(member);
      return list;
    },
  };
}
