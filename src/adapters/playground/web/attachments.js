// Attachments: the composer's paperclip (files read in the page, posted base64 with the message)
// and the files shown inside the message they came with. Uses el, $, fileBlobUrl, fileElement (app.js).
// Names are set with textContent; pictures come through the API with the key, as blob: URLs.

const MAX_ATTACHMENTS = 10;
const MAX_ATTACHMENT_BYTES = 5_000_000;
// Only plain raster pictures are shown inline (the server serves nothing else as an image).
const SHOWN_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The files chosen in each composer, by the id of its file input. */
const chosenFiles = new Map();

function wireAttachments(inputId, listId, errorLine) {
  const input = $(inputId);
  input.addEventListener('change', () => {
    const files = [...(chosenFiles.get(inputId) ?? []), ...input.files];
    input.value = '';
    const tooLarge = files.filter((file) => file.size > MAX_ATTACHMENT_BYTES).map((file) => file.name);
    errorLine.textContent = '';
    if (tooLarge.length) errorLine.textContent = `Not attached (over ${MAX_ATTACHMENT_BYTES / 1_000_000} MB): ${tooLarge.join(', ')}`;
    const kept = files.filter((file) => file.size <= MAX_ATTACHMENT_BYTES);
    if (kept.length > MAX_ATTACHMENTS) errorLine.textContent = `At most ${MAX_ATTACHMENTS} files per message.`;
    chosenFiles.set(inputId, kept.slice(0, MAX_ATTACHMENTS));
    renderChosen(inputId, listId);
  });
}

function renderChosen(inputId, listId) {
  const list = $(listId);
  list.replaceChildren();
  const files = chosenFiles.get(inputId) ?? [];
  files.forEach((file, index) => {
    const chip = el('span', 'chosen-file', `📎 ${file.name}`);
    const remove = el('button', 'dismiss', '✕');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Remove ${file.name}`);
    remove.addEventListener('click', () => {
      files.splice(index, 1);
      renderChosen(inputId, listId);
    });
    chip.append(remove);
    list.append(chip);
  });
  list.hidden = files.length === 0;
}

function chosenCount(inputId) {
  return (chosenFiles.get(inputId) ?? []).length;
}

/** The chosen files as the message post carries them: `{ name, type, data }` with the bytes in base64. */
function encodeChosen(inputId) {
  return Promise.all(
    (chosenFiles.get(inputId) ?? []).map(
      (file) =>
        new Promise((resolve, reject) => {
          const reader = new FileReader();
          reader.onload = () => resolve({ name: file.name, type: file.type, data: String(reader.result).slice(String(reader.result).indexOf(',') + 1) });
          reader.onerror = () => reject(new Error(`${file.name} could not be read`));
          reader.readAsDataURL(file);
        }),
    ),
  );
}

function clearChosen(inputId, listId) {
  chosenFiles.delete(inputId);
  renderChosen(inputId, listId);
}

/** The files attached to a message, inside it: pictures as thumbnails, the rest as downloads. */
function attachmentsElement(message) {
  const box = el('div', 'attachments');
  for (const id of message.attachments) {
    const file = state.files.find((candidate) => candidate.id === id);
    if (!file) continue;
    if (file.attached && SHOWN_IMAGE_TYPES.has(file.attached.mediaType)) {
      const image = el('img', 'thumbnail');
      image.alt = file.fileName;
      image.title = file.fileName;
      fileBlobUrl(file, true).then(
        (url) => {
          image.src = url;
        },
        () => undefined,
      );
      box.append(image);
    } else box.append(fileElement(file));
  }
  return box;
}

// What app.js calls (plain scripts share no modules: one name on the page's global object).
globalThis.tsukaAttachments = {
  wire: wireAttachments,
  count: chosenCount,
  encode: encodeChosen,
  clear: clearChosen,
  element: attachmentsElement,
};
