// Web chat of the Balcão sandbox: plays a persona against the local Bot API emulator.
// No build step, no dependencies. Updates arrive by long-polling /sandbox/chat.
"use strict";

(function () {
  const $ = (testid) => document.querySelector(`[data-testid="${testid}"]`);
  const state = {
    userId: null, personas: [], generation: 0, controller: null, seenNotices: new Set(), rendered: new Map(),
    pinned: true,  // keep the newest message in view unless the person scrolled up
  };

  // --- talking to the emulator ----------------------------------------------------------------

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      let message = "Não deu certo.";
      try { message = (await response.json()).error || message; } catch (_) { /* keep default */ }
      showNotice({ text: message, show_alert: false });
    }
    return response;
  }

  function sendText(text) {
    text = text.trim();
    if (!text || state.userId === null) return;
    post("/sandbox/send", { user_id: state.userId, text });
  }

  function shareContact() {
    post("/sandbox/contact", { user_id: state.userId, phone: $("contact-phone").value });
  }

  function shareLocation() {
    post("/sandbox/location", {
      user_id: state.userId,
      latitude: parseFloat($("location-latitude").value),
      longitude: parseFloat($("location-longitude").value),
    });
  }

  async function upload(input, kind) {
    const file = input.files && input.files[0];
    if (!file) return;
    const form = new FormData();
    form.append("user_id", String(state.userId));
    form.append("kind", kind);
    const caption = $("message-input").value.trim();
    if (caption) form.append("caption", caption);
    form.append("file", file, file.name);
    const response = await fetch("/sandbox/upload", { method: "POST", body: form });
    if (!response.ok) {
      let message = "Não foi possível enviar o arquivo.";
      try { message = (await response.json()).error || message; } catch (_) { /* keep default */ }
      showNotice({ text: message, show_alert: false });
    } else {
      $("message-input").value = "";
    }
    input.value = "";
  }

  async function pollLoop(generation) {
    let since = null;
    while (generation === state.generation) {
      const url = `/sandbox/chat?user_id=${state.userId}` + (since === null ? "" : `&since=${since}`);
      try {
        const response = await fetch(url, { signal: state.controller.signal, cache: "no-store" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const data = await response.json();
        if (generation !== state.generation) return;
        render(data);
        since = data.version;
        setStatus("");
      } catch (error) {
        if (generation !== state.generation || error.name === "AbortError") return;
        setStatus("Sem conexão com o emulador. Tentando de novo…");
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  function choosePersona(userId) {
    state.generation += 1;
    if (state.controller) state.controller.abort();
    state.controller = new AbortController();
    state.userId = userId;
    state.seenNotices = new Set();
    state.rendered = new Map();
    state.pinned = true;
    const persona = state.personas.find((p) => p.user_id === userId) || {};
    $("persona-role").textContent = persona.role_label || "";
    $("contact-phone").value = persona.phone || "";
    $("chat-log").replaceChildren();
    const url = new URL(window.location.href);
    url.searchParams.set("persona", String(userId));
    window.history.replaceState(null, "", url);
    pollLoop(state.generation);
  }

  // --- rendering ------------------------------------------------------------------------------

  function setStatus(text) {
    const status = $("connection-status");
    status.textContent = text;
    status.hidden = !text;
  }

  let noticeTimer = null;
  function showNotice(notice) {
    const box = $("callback-toast");
    box.textContent = notice.text;
    box.classList.toggle("alert", Boolean(notice.show_alert));
    box.hidden = false;
    clearTimeout(noticeTimer);
    if (!notice.show_alert) noticeTimer = setTimeout(() => { box.hidden = true; }, 3500);
  }

  const SAFE_SCHEMES = /^(https?:|tg:|mailto:)/i;

  function elementFor(entity) {
    switch (entity.type) {
      case "bold": return document.createElement("b");
      case "italic": return document.createElement("i");
      case "underline": return document.createElement("u");
      case "strikethrough": return document.createElement("s");
      case "code": return document.createElement("code");
      case "pre": {
        const pre = document.createElement("pre");
        if (entity.language) pre.dataset.language = entity.language;
        return pre;
      }
      case "blockquote":
      case "expandable_blockquote": return document.createElement("blockquote");
      case "spoiler": {
        const span = document.createElement("span");
        span.className = "spoiler";
        span.addEventListener("click", () => span.classList.toggle("shown"));
        return span;
      }
      case "text_link":
      case "url": {
        const link = document.createElement("a");
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        const href = entity.type === "url" ? null : entity.url;
        if (href && SAFE_SCHEMES.test(href)) link.href = href;
        return link;
      }
      default: return document.createElement("span");
    }
  }

  // Builds DOM nodes from text + Bot API entities (offsets are UTF-16, like JavaScript strings).
  function appendFormatted(parent, text, start, end, entities) {
    let position = start;
    let index = 0;
    while (index < entities.length) {
      const entity = entities[index];
      const entityEnd = Math.min(entity.offset + entity.length, end);
      if (entity.offset < position) { index += 1; continue; }
      if (entity.offset > position) parent.appendChild(document.createTextNode(text.slice(position, entity.offset)));
      const inner = [];
      let next = index + 1;
      while (next < entities.length && entities[next].offset < entityEnd) {
        if (entities[next].offset + entities[next].length <= entityEnd) inner.push(entities[next]);
        next += 1;
      }
      const element = elementFor(entity);
      appendFormatted(element, text, entity.offset, entityEnd, inner);
      if (entity.type === "url" && !element.href && SAFE_SCHEMES.test(element.textContent)) {
        element.href = element.textContent;
      }
      parent.appendChild(element);
      position = entityEnd;
      index = next;
    }
    if (position < end) parent.appendChild(document.createTextNode(text.slice(position, end)));
  }

  function formatted(text, entities) {
    const span = document.createElement("span");
    span.dataset.testid = "message-text";
    const sorted = (entities || []).slice().sort((a, b) => a.offset - b.offset || b.length - a.length);
    appendFormatted(span, text, 0, text.length, sorted);
    return span;
  }

  function humanSize(bytes) {
    if (bytes === undefined || bytes === null) return "";
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(".", ",")} KB`;
    return `${(bytes / 1024 / 1024).toFixed(1).replace(".", ",")} MB`;
  }

  function messageElement(message) {
    const box = document.createElement("div");
    box.className = `msg ${message.from}`;
    box.dataset.testid = "message";
    box.dataset.from = message.from;
    box.dataset.messageId = String(message.message_id);
    if (message.photo) {
      const link = document.createElement("a");
      link.href = message.photo.url;
      link.target = "_blank";
      link.dataset.testid = "photo-link";
      const image = document.createElement("img");
      image.className = "photo";
      image.src = message.photo.url;
      image.alt = "Foto";
      image.dataset.testid = "message-photo";
      image.addEventListener("load", keepPinned);
      link.appendChild(image);
      box.appendChild(link);
    }
    if (message.document) {
      const link = document.createElement("a");
      link.className = "attachment";
      link.href = message.document.url;
      link.target = "_blank";
      link.dataset.testid = "document-link";
      link.textContent = `Documento: ${message.document.file_name} ${humanSize(message.document.file_size)}`.trim();
      box.appendChild(link);
      box.appendChild(document.createElement("br"));
    }
    if (message.recording) {
      const player = document.createElement(message.recording.kind === "video" ? "video" : "audio");
      player.controls = true;
      player.src = message.recording.url;
      player.className = "recording";
      player.dataset.testid = `message-${message.recording.kind}`;
      player.setAttribute("aria-label", message.recording.kind === "video" ? "Vídeo" : "Mensagem de voz");
      box.appendChild(player);
      box.appendChild(document.createElement("br"));
    }
    if (message.contact) {
      const contact = document.createElement("span");
      contact.dataset.testid = "message-contact";
      contact.textContent = `Contato: ${message.contact.first_name} ${message.contact.phone_number}`;
      box.appendChild(contact);
    }
    if (message.location) {
      const place = document.createElement("span");
      place.dataset.testid = "message-location";
      place.textContent = `Localização: ${message.location.latitude}, ${message.location.longitude}`;
      box.appendChild(place);
    }
    if (message.text) box.appendChild(formatted(message.text, message.entities));
    const meta = document.createElement("span");
    meta.className = "meta";
    const time = new Date(message.date * 1000).toLocaleTimeString("pt-BR", { hour: "2-digit", minute: "2-digit" });
    meta.textContent = message.edited ? `editada · ${time}` : time;
    box.appendChild(meta);
    if (message.inline_keyboard && message.inline_keyboard.length) {
      const keyboard = document.createElement("div");
      keyboard.className = "inline-keyboard";
      keyboard.dataset.testid = "inline-keyboard";
      for (const row of message.inline_keyboard) {
        const line = document.createElement("div");
        line.className = "row";
        for (const button of row) line.appendChild(inlineButton(message, button));
        keyboard.appendChild(line);
      }
      box.appendChild(keyboard);
    }
    return box;
  }

  function inlineButton(message, button) {
    if (button.url) {
      const link = document.createElement("a");
      link.textContent = button.text;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      if (SAFE_SCHEMES.test(button.url)) link.href = button.url;
      link.dataset.testid = "inline-url-button";
      return link;
    }
    const element = document.createElement("button");
    element.type = "button";
    element.textContent = button.text;
    element.dataset.testid = "inline-button";
    if (button.callback_data !== undefined) {
      element.dataset.callbackData = button.callback_data;
      element.addEventListener("click", () => post("/sandbox/press", {
        user_id: state.userId, message_id: message.message_id, callback_data: button.callback_data,
      }));
    } else {
      element.disabled = true;
      element.title = "Este tipo de botão não funciona na conversa de teste";
    }
    return element;
  }

  function keepPinned() {
    const log = $("chat-log");
    if (state.pinned) log.scrollTop = log.scrollHeight;
  }

  function renderReplyKeyboard(keyboard) {
    const box = $("reply-keyboard");
    box.replaceChildren();
    box.hidden = !keyboard;
    $("message-input").placeholder = (keyboard && keyboard.placeholder) || "Escreva uma mensagem";
    if (!keyboard) return;
    for (const row of keyboard.rows) {
      const line = document.createElement("div");
      line.className = "row";
      for (const button of row) {
        const element = document.createElement("button");
        element.type = "button";
        element.textContent = button.text;
        element.dataset.testid = "reply-button";
        if (button.request_contact) {
          element.dataset.request = "contact";
          element.addEventListener("click", shareContact);
        } else if (button.request_location) {
          element.dataset.request = "location";
          element.addEventListener("click", shareLocation);
        } else {
          element.addEventListener("click", () => sendText(button.text));
        }
        line.appendChild(element);
      }
      box.appendChild(line);
    }
  }

  function renderCommands(commands) {
    const box = $("commands-menu");
    box.replaceChildren();
    for (const command of commands) {
      const element = document.createElement("button");
      element.type = "button";
      element.dataset.testid = "command-item";
      const name = document.createElement("span");
      name.textContent = `/${command.command}`;
      const description = document.createElement("span");
      description.className = "description";
      description.textContent = command.description;
      element.append(name, description);
      element.addEventListener("click", () => { box.hidden = true; sendText(`/${command.command}`); });
      box.appendChild(element);
    }
    $("commands-button").disabled = commands.length === 0;
    if (commands.length === 0) box.hidden = true;
  }

  // Only messages that changed get a new element; the others stay as they are on the page.
  function render(data) {
    const log = $("chat-log");
    const wanted = [];
    const present = new Set();
    for (const message of data.messages) {
      const key = JSON.stringify(message);
      let entry = state.rendered.get(message.message_id);
      if (!entry || entry.key !== key) {
        entry = { key, element: messageElement(message) };
        state.rendered.set(message.message_id, entry);
      }
      present.add(message.message_id);
      wanted.push(entry.element);
    }
    for (const id of Array.from(state.rendered.keys())) if (!present.has(id)) state.rendered.delete(id);
    wanted.forEach((element, index) => {
      if (log.children[index] !== element) log.insertBefore(element, log.children[index] || null);
    });
    while (log.children.length > wanted.length) log.lastElementChild.remove();
    keepPinned();
    renderReplyKeyboard(data.reply_keyboard);
    renderCommands(data.commands);
    for (const notice of data.notices) {
      if (state.seenNotices.has(notice.id)) continue;
      state.seenNotices.add(notice.id);
      showNotice(notice);
    }
    if (data.blocked) setStatus("Esta pessoa bloqueou o bot (simulação).");
  }

  // --- start ----------------------------------------------------------------------------------

  async function start() {
    const info = await (await fetch("/sandbox/info", { cache: "no-store" })).json();
    state.personas = info.personas;
    $("bot-name").textContent = info.bot.first_name;
    document.title = `${info.bot.first_name} — conversa de teste`;
    $("location-latitude").value = info.location.latitude;
    $("location-longitude").value = info.location.longitude;
    const select = $("persona-select");
    for (const persona of info.personas) {
      const option = document.createElement("option");
      option.value = String(persona.user_id);
      option.textContent = [persona.first_name, persona.last_name].filter(Boolean).join(" ");
      select.appendChild(option);
    }
    const wanted = Number(new URL(window.location.href).searchParams.get("persona"));
    const first = info.personas.find((p) => p.user_id === wanted) || info.personas[0];
    if (!first) { setStatus("Nenhuma pessoa configurada no emulador."); return; }
    select.value = String(first.user_id);
    select.addEventListener("change", () => choosePersona(Number(select.value)));

    $("send-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = $("message-input");
      sendText(input.value);
      input.value = "";
      input.focus();
    });
    $("share-contact").addEventListener("click", shareContact);
    $("share-location").addEventListener("click", shareLocation);
    $("photo-input").addEventListener("change", (event) => upload(event.target, "photo"));
    $("document-input").addEventListener("change", (event) => upload(event.target, "document"));
    $("voice-input").addEventListener("change", (event) => upload(event.target, "voice"));
    $("video-input").addEventListener("change", (event) => upload(event.target, "video"));
    $("chat-log").addEventListener("scroll", () => {
      const log = $("chat-log");
      state.pinned = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    });
    if (window.ResizeObserver) new ResizeObserver(keepPinned).observe($("chat-log"));
    $("commands-button").addEventListener("click", () => { $("commands-menu").hidden = !$("commands-menu").hidden; });
    choosePersona(first.user_id);
  }

  start().catch(() => setStatus("Não foi possível falar com o emulador."));
})();
