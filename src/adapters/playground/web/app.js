// The playground page: plain browser JavaScript, no build step, nothing from the network.
// Message bodies arrive as HTML the server already escaped (markdown.ts); everything else
// (names, labels, file names, ephemerals' labels) is set with textContent, never as markup.

const state = {
  channels: [],
  messages: new Map(),
  ephemerals: [],
  files: [],
  statuses: new Map(),
  channel: 'general',
  thread: undefined,
  // After a slash command, open the thread of the next root message TSUKA posts (the run's root).
  openNextRootUntil: 0,
  // After sending, the log scrolls to the bottom at the next render, wherever it was.
  scrollToEnd: false,
};

const $ = (id) => document.getElementById(id);
const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

// ---- the access key -------------------------------------------------------------------------
// `tsuka start` prints http://127.0.0.1:<port>/#k=<key>. The key is this start's only proof that a
// request comes from this page and not from any other program on the machine (access-key.ts): kept
// in sessionStorage (this origin only), taken out of the address bar, sent in a header — never in a URL.

const KEY_STORAGE = 'tsuka-playground-key';
function readAccessKey() {
  const fromLink = /(?:^#|&)k=([\w-]+)/.exec(location.hash)?.[1];
  if (fromLink) {
    sessionStorage.setItem(KEY_STORAGE, fromLink);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY_STORAGE) || '';
}
const accessKey = readAccessKey();
let keyRefused = false;

function showKeyProblem() {
  keyRefused = true;
  $('key-banner').hidden = false;
  $('connection').dataset.state = 'offline';
  $('connection').textContent = 'no access key';
}

/** fetch with the access key; a refused key shows how to get the right link. */
async function api(path, init = {}) {
  const response = await fetch(path, { ...init, headers: { ...init.headers, 'x-tsuka-key': accessKey } });
  if (response.status === 401 || response.status === 403) {
    const answer = await response
      .clone()
      .json()
      .catch(() => ({}));
    if (/access key/.test(String(answer.error))) showKeyProblem();
  }
  return response;
}

async function postJson(path, body) {
  const response = await api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json().catch(() => ({ ok: false, error: `HTTP ${response.status}` }));
  if (!response.ok || answer.ok === false) throw new Error(answer.error || `HTTP ${response.status}`);
  return answer;
}

// ---- live updates -------------------------------------------------------------------------

function applySnapshot(snapshot) {
  state.channels = snapshot.channels;
  state.messages = new Map(snapshot.messages.map((message) => [message.id, message]));
  state.ephemerals = snapshot.ephemerals;
  state.files = snapshot.files;
  state.statuses = new Map(snapshot.statuses.map((status) => [status.thread, status]));
  if (!state.channels.some((channel) => channel.id === state.channel)) state.channel = 'general';
  if (state.thread && !state.messages.has(state.thread)) state.thread = undefined;
}

function applyChange(change) {
  switch (change.kind) {
    case 'message': {
      const isNew = !state.messages.has(change.message.id);
      state.messages.set(change.message.id, change.message);
      const message = change.message;
      if (isNew && !message.thread && message.author.kind !== 'user' && message.channel === state.channel && Date.now() < state.openNextRootUntil) {
        state.openNextRootUntil = 0;
        state.thread = message.id;
      }
      break;
    }
    case 'ephemeral':
      state.ephemerals.push(change.ephemeral);
      break;
    case 'ephemeral-dismissed':
      state.ephemerals = state.ephemerals.filter((ephemeral) => ephemeral.id !== change.id);
      break;
    case 'file':
      state.files.push(change.file);
      break;
    case 'channel':
      if (!state.channels.some((channel) => channel.id === change.channel.id)) state.channels.push(change.channel);
      break;
    case 'model':
      showModelStatus(change.model);
      break;
    case 'status':
      if (change.status.text) state.statuses.set(change.status.thread, change.status);
      else state.statuses.delete(change.status.thread);
      break;
  }
}

/** One server-sent event block (`event: …` / `data: …` lines) applied to the page. */
function handleEventBlock(block) {
  const type = /^event: (.+)$/m.exec(block)?.[1];
  const data = /^data: (.+)$/m.exec(block)?.[1];
  if (!type || !data) return;
  if (type === 'snapshot') applySnapshot(JSON.parse(data));
  else if (type === 'change') applyChange(JSON.parse(data));
  scheduleRender();
}

// The event stream read through fetch (EventSource cannot send the key header), reconnecting as EventSource would.
async function connect() {
  const connection = $('connection');
  for (;;) {
    try {
      const response = await api('/events');
      if (keyRefused) return;
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      connection.dataset.state = 'live';
      connection.textContent = 'live';
      refreshModelStatus();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          handleEventBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Offline for now: shown below, tried again in a second.
    }
    if (keyRefused) return;
    connection.dataset.state = 'offline';
    connection.textContent = 'reconnecting…';
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The banner says how to start a model server while none answers, and goes once one does. */
function showModelStatus(status) {
  $('model-banner').hidden = status.ok === true;
  $('model-message').textContent = status.ok ? '' : String(status.message || '');
}

async function refreshModelStatus() {
  try {
    const response = await api('/api/status');
    showModelStatus(await response.json());
  } catch (error) {
    $('model-banner').hidden = false;
    $('model-message').textContent = `The playground server did not answer: ${error.message}`;
  }
}

// ---- rendering ----------------------------------------------------------------------------

let renderPending = false;
function scheduleRender() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => {
    renderPending = false;
    renderAndSettle();
  });
}

const formatTime = (time) => new Date(time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

// Faces are pictures drawn by this server: an emoji is an empty box where no emoji font is installed.
// (Messages kept from an older version name no picture for the bot and the person: these stand in.)
const FACES = { bot: '/avatars/tsuka-bot.png', user: '/avatars/you-person.png' };
const initialOf = (name) => [...(name || '?').trim()][0]?.toUpperCase() || '?';

function avatar(author) {
  const box = el('div', `avatar avatar-${author.kind}`);
  const picture = author.imageUrl || FACES[author.kind];
  if (picture) {
    const image = el('img');
    image.src = picture;
    image.alt = '';
    image.referrerPolicy = 'no-referrer';
    // A picture that does not load leaves the name's initial, which every font can show.
    image.addEventListener('error', () => box.replaceChildren(initialOf(author.name)), { once: true });
    box.append(image);
  } else box.textContent = author.emoji || initialOf(author.name);
  return box;
}

function messageElement(message, inChannel) {
  const article = el('article', `message message-${message.author.kind}${message.buttons.length ? ' card' : ''}`);
  article.dataset.messageId = message.id;
  article.append(avatar(message.author));
  const content = el('div', 'content');
  const meta = el('div', 'meta');
  meta.append(el('span', 'name', message.author.name), el('time', 'time', formatTime(message.createdAt)));
  if (message.author.kind === 'character') meta.append(el('span', 'tag', 'AI'));
  if (message.edits > 0) meta.append(el('span', 'edited', '(edited)'));
  const body = el('div', 'body');
  // Escaped and rendered on the server (markdown.ts): the only markup in it is the renderer's own.
  body.innerHTML = message.html;
  content.append(meta, body);
  if (message.attachments?.length) content.append(tsukaAttachments.element(message));
  if (message.buttons.length) {
    const row = el('div', 'buttons');
    for (const button of message.buttons) {
      const control = el('button', `btn btn-${button.style}`, button.label);
      control.type = 'button';
      control.dataset.actionId = button.actionId;
      control.addEventListener('click', () => clickButton(message, button, control));
      row.append(control);
    }
    content.append(row);
  }
  if (message.menus?.length) content.append(menusElement(message));
  if (inChannel) {
    const replies = [...state.messages.values()].filter((reply) => reply.thread === message.id).length;
    if (replies > 0 || message.author.kind === 'user') {
      const link = el('button', 'replies', replies ? `${replies} ${replies === 1 ? 'reply' : 'replies'}` : 'open thread');
      link.type = 'button';
      link.addEventListener('click', () => openThread(message.id));
      content.append(link);
    }
  }
  article.append(content);
  return article;
}

function ephemeralElement(ephemeral) {
  const box = el('div', 'ephemeral');
  box.dataset.ephemeralId = ephemeral.id;
  const label = el('div', 'ephemeral-label', '👁 Only you can see this');
  const dismiss = el('button', 'dismiss', '✕');
  dismiss.type = 'button';
  dismiss.title = 'Dismiss';
  dismiss.setAttribute('aria-label', 'Dismiss this note');
  dismiss.addEventListener('click', async () => {
    box.remove();
    state.ephemerals = state.ephemerals.filter((item) => item.id !== ephemeral.id);
    await postJson('/api/ephemerals/dismiss', { id: ephemeral.id }).catch(() => undefined);
  });
  label.append(dismiss);
  box.append(label);
  const body = el('div', 'body');
  body.innerHTML = ephemeral.html;
  box.append(body);
  return box;
}

function fileElement(file) {
  const box = el('div', 'file');
  if (file.image) {
    const figure = el('figure', 'picture');
    const image = el('img');
    image.alt = file.image.altText;
    fileBlobUrl(file, true).then(
      (url) => {
        image.src = url;
      },
      () => undefined,
    );
    figure.append(image, el('figcaption', undefined, file.title));
    box.append(figure);
    return box;
  }
  const link = el('a', undefined, `📎 ${file.title || file.fileName}`);
  link.href = '#';
  link.addEventListener('click', async (event) => {
    event.preventDefault();
    try {
      const save = el('a');
      save.href = await fileBlobUrl(file, false);
      save.download = file.fileName;
      save.click();
    } catch (error) {
      $(file.thread ? 'thread-error' : 'composer-error').textContent = `The file could not be fetched: ${error.message}`;
    }
  });
  box.append(link, el('span', 'file-meta', ` ${file.fileName} · ${file.size} bytes`));
  return box;
}

// Files come through the API with the key, then are shown from memory (a blob: URL per file, kept).
const fileUrls = new Map();
function fileBlobUrl(file, asImage) {
  const cacheKey = `${file.id}:${asImage}`;
  if (!fileUrls.has(cacheKey))
    fileUrls.set(
      cacheKey,
      api(`/api/files?id=${encodeURIComponent(file.id)}${asImage ? '&view=image' : ''}`)
        .then(async (response) => {
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          return URL.createObjectURL(await response.blob());
        })
        .catch((error) => {
          fileUrls.delete(cacheKey);
          throw error;
        }),
    );
  return fileUrls.get(cacheKey);
}

function renderLog(container, entries, emptyText) {
  const nearBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 80;
  container.replaceChildren();
  entries.sort((a, b) => a.at - b.at);
  for (const entry of entries) container.append(entry.node);
  if (entries.length === 0 && emptyText) container.append(el('p', 'empty', emptyText));
  if (nearBottom || state.scrollToEnd) container.scrollTop = container.scrollHeight;
}

function channelButton(channel, label) {
  const item = el('li');
  const link = el('button', channel.id === state.channel ? 'channel active' : 'channel', label);
  link.type = 'button';
  link.addEventListener('click', () => {
    document.body.classList.remove('channels-open');
    state.channel = channel.id;
    state.thread = undefined;
    scheduleRender();
  });
  item.append(link);
  return item;
}

function render() {
  $('channels').replaceChildren(...state.channels.filter((channel) => !channel.direct).map((channel) => channelButton(channel, `# ${channel.name}`)));
  // The direct conversation with the bot: every message in it addresses TSUKA.
  $('directs').replaceChildren(...state.channels.filter((channel) => channel.direct).map((channel) => channelButton(channel, `@ ${channel.name}`)));
  const current = state.channels.find((channel) => channel.id === state.channel);
  $('channel-title').textContent = current?.direct ? `@ ${current.name} (direct)` : `# ${state.channel}`;
  $('input').placeholder = current?.direct
    ? `Message ${current.name} directly — every message here is for the bot`
    : `Message #${state.channel} — try: @geordi what can you do?  ·  /call spock worf "topic"  ·  /tsuka help`;

  // Files attached to a message are shown inside it, not on their own.
  const attached = new Set([...state.messages.values()].flatMap((message) => message.attachments ?? []));
  const shownFiles = state.files.filter((file) => !attached.has(file.id));
  const inChannel = (item) => item.channel === state.channel && !item.thread;
  renderLog(
    $('messages'),
    [
      ...[...state.messages.values()].filter(inChannel).map((message) => ({ at: message.createdAt, node: messageElement(message, true) })),
      ...state.ephemerals.filter(inChannel).map((ephemeral) => ({ at: ephemeral.createdAt, node: ephemeralElement(ephemeral) })),
      ...shownFiles.filter(inChannel).map((file) => ({ at: file.createdAt, node: fileElement(file) })),
    ],
    'Nobody has said anything here yet. Mention a character to start: @geordi why does npm test fail?',
  );

  const panel = $('thread-panel');
  const root = state.thread ? state.messages.get(state.thread) : undefined;
  panel.hidden = !root;
  if (!root) return;
  const inThread = (item) => item.thread === root.id;
  renderLog($('thread-messages'), [
    { at: root.createdAt, node: messageElement(root, false) },
    ...[...state.messages.values()].filter(inThread).map((message) => ({ at: message.createdAt, node: messageElement(message, false) })),
    ...state.ephemerals.filter(inThread).map((ephemeral) => ({ at: ephemeral.createdAt, node: ephemeralElement(ephemeral) })),
    ...shownFiles.filter(inThread).map((file) => ({ at: file.createdAt, node: fileElement(file) })),
  ]);
  $('thread-status').textContent = state.statuses.get(root.id)?.text ?? '';
}

/** Renders, then forgets the request to scroll to the end (it served both logs). */
function renderAndSettle() {
  render();
  state.scrollToEnd = false;
}

// ---- input --------------------------------------------------------------------------------

function openThread(id) {
  state.thread = id;
  scheduleRender();
  $('thread-input').focus();
}

async function send(textarea, errorLine, thread, files) {
  const text = textarea.value.trim();
  if (!text && tsukaAttachments.count(files.input) === 0) return;
  errorLine.textContent = '';
  textarea.disabled = true;
  try {
    if (text.startsWith('/')) state.openNextRootUntil = Date.now() + 60_000;
    state.scrollToEnd = true;
    const attachments = await tsukaAttachments.encode(files.input);
    const answer = await postJson('/api/messages', { channel: state.channel, thread, text, ...(attachments.length ? { files: attachments } : {}) });
    textarea.value = '';
    tsukaAttachments.clear(files.input, files.list);
    state.scrollToEnd = true;
    scheduleRender();
    if (!thread && answer.thread) openThread(answer.thread);
  } catch (error) {
    errorLine.textContent = `Not sent: ${error.message}`;
  } finally {
    textarea.disabled = false;
    textarea.focus();
  }
}

/** A finished reply's menus (Ask another character, Re-run): picking an option sends it at once. */
function menusElement(message) {
  const row = el('div', 'menus');
  for (const menu of message.menus) {
    const select = el('select', 'menu');
    select.setAttribute('aria-label', menu.label);
    const placeholder = el('option', '', menu.label);
    placeholder.value = '';
    placeholder.selected = true;
    placeholder.disabled = true;
    select.append(placeholder);
    for (const option of menu.options) {
      const item = el('option', '', option.label);
      item.value = option.choice;
      select.append(item);
    }
    select.addEventListener('change', async () => {
      const choice = select.value;
      select.value = '';
      try {
        await postJson('/api/actions', { message: message.id, actionId: menu.actionId, value: menu.value, choice });
      } catch (error) {
        const target = message.thread ? $('thread-error') : $('composer-error');
        target.textContent = `That choice did not go through: ${error.message}`;
      }
    });
    row.append(select);
  }
  return row;
}

async function clickButton(message, button, control) {
  for (const sibling of control.parentElement.querySelectorAll('button')) sibling.disabled = true;
  try {
    await postJson('/api/actions', { message: message.id, actionId: button.actionId, value: button.value });
  } catch (error) {
    const target = message.thread ? $('thread-error') : $('composer-error');
    target.textContent = `That click did not go through: ${error.message}`;
    for (const sibling of control.parentElement.querySelectorAll('button')) sibling.disabled = false;
  }
}

function wireComposer(formId, textareaId, errorId, thread, files) {
  const form = $(formId);
  const textarea = $(textareaId);
  tsukaAttachments.wire(files.input, files.list, $(errorId));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send(textarea, $(errorId), thread(), files);
  });
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
}

document.addEventListener('DOMContentLoaded', () => {
  wireComposer('composer', 'input', 'composer-error', () => undefined, { input: 'files', list: 'chosen' });
  wireComposer('thread-composer', 'thread-input', 'thread-error', () => state.thread, { input: 'thread-files', list: 'thread-chosen' });
  $('show-channels').addEventListener('click', () => document.body.classList.toggle('channels-open'));
  $('close-thread').addEventListener('click', () => {
    state.thread = undefined;
    scheduleRender();
  });
  $('add-channel').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = $('new-channel');
    try {
      const answer = await postJson('/api/channels', { name: input.value });
      input.value = '';
      if (!state.channels.some((channel) => channel.id === answer.channel.id)) state.channels.push(answer.channel);
      state.channel = answer.channel.id;
      state.thread = undefined;
      scheduleRender();
    } catch (error) {
      $('composer-error').textContent = error.message;
    }
  });
  if (!accessKey) return showKeyProblem();
  void connect();
  refreshModelStatus();
});
