/*
 * Herald web chat.
 *
 * Delivery rules (see WebChatPlatform): the server's transcript is the source of truth. The page renders
 * stored rows by sequence number (each at most once) and fetches the rows after the last one it has
 * whenever its event stream (re)connects or a reply arrives. Streamed deltas are drafts, replaced by the
 * stored row. Messages typed while disconnected wait in localStorage with a client id and are sent once
 * connected; the server drops a repeat of the same id, so a retry never delivers twice.
 *
 * Answers are Markdown, rendered in the page (markdown.js: marked + DOMPurify) from the stored text, and a
 * streamed draft is rendered again at most once per frame as deltas arrive. A session change (/new, a
 * suspension, a compression) draws no divider: a compressed continuation's copied rows are skipped when
 * the rows they copy are on screen.
 */
"use strict";

(() => {
  const { el, api } = Herald;
  const STORE_KEY = "herald.chat.v1";
  const $ = (id) => document.getElementById(id);
  const messages = $("messages");

  // ---- local state (localStorage) -------------------------------------------------------------
  function load() {
    try {
      const s = JSON.parse(localStorage.getItem(STORE_KEY));
      if (s && Array.isArray(s.conversations) && Array.isArray(s.outbox)) return s;
    } catch (e) {
      /* a broken entry starts over */
    }
    return { conversations: [], current: null, outbox: [] };
  }
  const store = load();
  const save = () => localStorage.setItem(STORE_KEY, JSON.stringify(store));

  function conversation(id) {
    return store.conversations.find((c) => c.id === id);
  }

  function newConversation() {
    const c = { id: Herald.randomId("c"), title: "", updatedAt: new Date().toISOString() };
    store.conversations.unshift(c);
    save();
    return c;
  }

  // ---- the view of the open conversation ------------------------------------------------------
  let view = null;

  function resetView(id) {
    view = { id, sessionId: null, lastSeq: 0, drafts: new Map(), tools: new Map(), turns: new Set(), syncing: null, again: false,
      continuing: false, stopping: false };
    messages.replaceChildren();
    const c = conversation(id);
    $("title").textContent = (c && c.title) || "New conversation";
    setWorking(false);
    updateEmpty();
  }

  /** The empty state shows while the conversation has nothing on screen. */
  function updateEmpty() {
    $("empty").hidden = messages.childElementCount > 0;
  }

  function scrollDown() {
    messages.scrollTop = messages.scrollHeight;
    updateEmpty();
  }

  function setWorking(on) {
    $("working").hidden = !on;
  }

  function bubble(role, text, extra = {}) {
    const who = { user: "You", assistant: "Herald", command: "Herald", error: "Error" }[role] || role;
    const markdown = role === "assistant" || role === "command";
    const node = el("div", { class: "msg " + role + (extra.cls ? " " + extra.cls : ""), dataset: extra.dataset || {} },
      el("div", { class: "who" }, who),
      el("div", { class: "text" + (markdown ? " md" : "") }, markdown ? HeraldMarkdown.render(text) : text));
    node.raw = text;
    return node;
  }

  /**
   * Under a voice note: what Herald heard ("🎤 4 s · words"), once it was transcribed. A note stored before its
   * transcript is remembered, and read again when the answer arrives (see sync).
   */
  function showHeard(node, row) {
    const audio = (row.files || []).filter((f) => f.kind === "voice" || f.kind === "audio");
    if (!audio.length) return;
    const heard = audio.map((f) => f.heard).filter(Boolean);
    if (!heard.length) {
      view.heardMissing = Math.min(view.heardMissing || Infinity, row.seq);
      return;
    }
    node.querySelector(".heard")?.remove();
    node.append(el("div", { class: "heard", title: "What Herald heard" }, heard.map((h) => {
      const m = /^\[(?:voice note|audio)(?:, (\d+) s)?\] ?([\s\S]*)$/.exec(h);
      return "🎤 " + (m ? (m[1] ? m[1] + " s · " : "") + m[2] : h);
    }).join("\n")));
  }

  /** A stored answer: rendered, with Copy and (on the newest answer) Regenerate. */
  function answerBubble(text, seq) {
    const b = bubble("assistant", text, { dataset: { seq } });
    b.append(el("div", { class: "msg-actions" },
      el("button", { type: "button", class: "copy-answer", onclick: (e) => HeraldMarkdown.copy(b.raw, e.currentTarget) }, "Copy"),
      el("button", { type: "button", class: "regenerate", title: "Ask again: your last message is sent once more as a new turn",
        onclick: () => regenerate(b) }, "Regenerate")));
    return b;
  }

  /** Marks the newest stored answer, the one Regenerate belongs to. */
  function markLastAnswer() {
    const answers = messages.querySelectorAll(".msg.assistant:not(.draft)");
    answers.forEach((a, i) => a.classList.toggle("last-answer", i === answers.length - 1));
  }

  /** Sends the message the answer replied to again, as a new turn. */
  function regenerate(answer) {
    let node = answer.previousElementSibling;
    while (node && !(node.matches(".msg.user") && !node.classList.contains("pending"))) node = node.previousElementSibling;
    if (!node) {
      systemLine("There is no message of yours to ask again in this session.", "notice");
      return;
    }
    submit(node.raw || node.querySelector(".text").textContent);
  }

  /** Renders a draft's text again, at most once per animation frame. */
  function renderDraft(d) {
    if (d.pending) return;
    d.pending = requestAnimationFrame(() => {
      d.pending = 0;
      d.querySelector(".text").replaceChildren(HeraldMarkdown.render(d.raw));
      if (nearBottom) scrollDown();
    });
  }

  function systemLine(text, cls) {
    messages.append(el("div", { class: "sys " + (cls || "") }, text));
    scrollDown();
  }

  // ---- rendering stored rows ------------------------------------------------------------------
  /** Stored rows go before the messages still waiting to be stored (they were written after them). */
  function place(node) {
    const firstWaiting = messages.querySelector(".msg.user.pending");
    const attached = node.parentNode === messages;
    if (firstWaiting && (!attached || firstWaiting.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING)) {
      messages.insertBefore(node, firstWaiting);
    } else if (!attached) {
      messages.append(node);
    }
  }

  function renderRow(row) {
    if (row.role === "system" || row.role === "session_meta") return;
    if (row.role === "user" && row.note) {
      place(row.event === "summary"
        ? el("div", { class: "sys summary" }, "Earlier messages were summarized to fit the model's context.")
        : el("div", { class: "sys resume" }, "↻ The gateway restarted during this turn; Herald picks it up where it was cut off."));
      return;
    }
    if (row.role === "user") {
      const pending = [...messages.querySelectorAll(".msg.user.pending")].find((b) => b.dataset.text === row.text);
      if (pending) {
        pending.classList.remove("pending", "queued");
        pending.dataset.seq = row.seq;
        pending.querySelector(".state")?.remove();
        place(pending);
        showHeard(pending, row);
      } else {
        const files = (row.files || []).map((f) => (f.kind === "voice" ? "🎤 voice note" : "🖼 " + (f.name || "image"))).join(", ");
        const b = bubble("user", row.text || files, { dataset: { seq: row.seq } });
        place(b);
        showHeard(b, row);
      }
      return;
    }
    if (row.role === "assistant") {
      for (const t of row.tools || []) place(toolLine(t.name, t.args, t.id));
      const sent = (row.files || []).filter((f) => f.url);
      if ((row.text && row.text.trim()) || sent.length) {
        const answer = answerBubble(row.text || "", row.seq);
        if (sent.length) answer.insertBefore(fileList(sent), answer.querySelector(".msg-actions"));
        const stopped = messages.querySelector(".msg.draft.stopped");
        if (stopped) {
          stopped.replaceWith(answer); // the partial answer of a stopped turn stays before the "Stopped" notice
          clearDrafts();
        } else {
          if (!(row.tools || []).length) clearDrafts();
          place(answer);
        }
        markLastAnswer();
      }
      return;
    }
    if (row.role === "tool") {
      const line = view.tools.get(row.toolCallId);
      const state = row.outcome || "ok";
      if (line) finishTool(line, state, row.text);
      else place(finishTool(toolLine(row.toolName || "tool", "", row.toolCallId), state, row.text));
    }
  }

  /** The files an answer sent: a download link each, and images shown under their link. */
  function fileList(files) {
    const list = el("div", { class: "sent-files" });
    for (const f of files) {
      const size = f.size >= 0 ? " (" + humanSize(f.size) + ")" : "";
      const item = el("div", { class: "sent-file" },
        el("a", { href: f.url, download: f.name || "", class: "file-link" }, "📎 " + (f.name || "file") + size));
      if (/^image\/(png|jpeg|gif|webp)$/.test(f.type || "")) {
        item.append(el("img", { src: f.url, alt: f.name || "image", class: "sent-image", loading: "lazy" }));
      } else if (/^audio\//.test(f.type || "")) {
        item.append(el("audio", { src: f.url, controls: true, preload: "metadata", class: "sent-audio" }));
      }
      list.append(item);
    }
    return list;
  }

  function humanSize(n) {
    if (n < 1024) return n + " bytes";
    if (n < 1024 * 1024) return Math.ceil(n / 1024) + " KB";
    return (n / (1024 * 1024)).toFixed(1) + " MB";
  }

  function toolLine(name, args, callId) {
    const line = el("div", { class: "tool", dataset: { call: callId || "" } },
      el("span", { class: "tool-icon", "aria-hidden": "true" }, "⚙"),
      el("span", { class: "tool-name" }, name),
      args ? el("code", { class: "tool-args" }, args) : null,
      el("span", { class: "tool-state" }, "running…"));
    if (callId) view.tools.set(callId, line);
    return line;
  }

  /** How a call ended (ok, error, denied, interrupted, as the server says) → the line's class and word. */
  const TOOL_STATES = {
    ok: ["ok", "done"], error: ["failed", "failed"], denied: ["denied", "denied"], interrupted: ["interrupted", "interrupted"],
  };

  function finishTool(line, state, detail) {
    const [cls, word] = TOOL_STATES[state] || TOOL_STATES.error;
    line.classList.remove("ok", "failed", "denied", "interrupted");
    line.classList.add(cls);
    line.dataset.state = state;
    line.querySelector(".tool-state").textContent = word;
    if (detail) line.title = detail;
    return line;
  }

  /** Fetches the rows after the last one shown; one fetch at a time, repeated when asked meanwhile. */
  function sync() {
    if (view.syncing) {
      view.again = true;
      return view.syncing;
    }
    const v = view;
    v.syncing = (async () => {
      do {
        v.again = false;
        const res = await api("/chat/api/transcript?c=" + encodeURIComponent(v.id) + "&after=" + v.lastSeq);
        if (v !== view || !res.ok) break;
        const data = res.data;
        if (data.sessionId && v.sessionId && data.sessionId !== v.sessionId) {
          // a new session (/new, a suspension) or a compressed continuation: no divider; a continuation's
          // copied rows and its summary are already on screen as the rows they copy
          v.continuing = data.continues === v.sessionId;
          v.sessionId = data.sessionId;
          v.lastSeq = 0;
          v.again = true;
          continue;
        }
        v.sessionId = data.sessionId || v.sessionId;
        for (const row of data.rows) {
          if (row.seq > v.lastSeq) {
            if (!(v.continuing && (row.carried || row.event === "summary"))) {
              renderRow(row);
              // left out of what the model sees by /retry or /undo: still shown, faded, with the reason
              const shown = row.omitted && messages.querySelector('.msg[data-seq="' + row.seq + '"]');
              if (shown) { shown.classList.add("omitted"); shown.title = "Not seen by the model (" + row.omitted + ")"; }
            }
            v.lastSeq = row.seq;
          }
        }
        if (v.heardMissing && data.rows.some((r) => r.role === "assistant" && r.seq > v.heardMissing)) {
          // a voice note was stored before it was transcribed: its answer is here, so its transcript is too
          const from = v.heardMissing - 1;
          v.heardMissing = null;
          const again = await api("/chat/api/transcript?c=" + encodeURIComponent(v.id) + "&after=" + from);
          if (v !== view || !again.ok) break;
          for (const row of again.data.rows) {
            const node = row.role === "user" && messages.querySelector('.msg.user[data-seq="' + row.seq + '"]');
            if (node && !node.querySelector(".heard")) showHeard(node, row);
          }
          v.heardMissing = null;
        }
        setWorking(data.running && v.drafts.size === 0);
        scrollDown();
      } while (v.again);
      v.syncing = null;
    })();
    return v.syncing;
  }

  // ---- live frames ----------------------------------------------------------------------------
  function draft(turn) {
    let d = view.drafts.get(turn);
    if (!d) {
      d = bubble("assistant", "", { cls: "draft", dataset: { turn } });
      view.drafts.set(turn, d);
      messages.append(d);
    }
    return d;
  }

  let nearBottom = true;
  messages.addEventListener("scroll", () => {
    nearBottom = messages.scrollHeight - messages.scrollTop - messages.clientHeight < 80;
  });

  /**
   * The turn's draft keeps what was streamed, without the cursor: the turn was stopped. The stopped turn stores its
   * partial answer a moment after the "Stopped" notice, and no frame follows it, so the transcript is read again
   * (every half second, at most ten times) until that row has replaced the draft.
   */
  function stopDrafts() {
    let kept = false;
    for (const d of view.drafts.values()) {
      if (d.raw && d.raw.trim()) {
        d.classList.add("stopped");
        kept = true;
      } else {
        d.remove();
      }
    }
    if (kept) {
      const v = view;
      let tries = 0;
      const again = () => {
        if (v !== view || !messages.querySelector(".msg.draft.stopped") || ++tries > 10) return;
        sync();
        setTimeout(again, 500);
      };
      setTimeout(again, 500);
    }
  }

  function clearDrafts() {
    for (const d of view.drafts.values()) d.remove();
    view.drafts.clear();
  }

  function dropDraft(turn) {
    const d = view.drafts.get(turn);
    if (d) d.remove();
    view.drafts.delete(turn);
  }

  function onFrame(frame) {
    if ((frame.type === "delta" || frame.type === "tool") && !view.turns.has(frame.turn)) {
      view.turns.add(frame.turn); // a turn started: its user row is stored now, so confirm the sent bubble
      sync();
    }
    switch (frame.type) {
      case "hello":
        connected();
        return;
      case "delta": {
        setWorking(false);
        const d = draft(frame.turn);
        d.raw += frame.text;
        renderDraft(d);
        return;
      }
      case "tool": {
        // the call's line from the transcript when it is shown already, else a live one in the turn's draft
        const state = frame.state || (frame.phase === "finished" ? (frame.ok ? "ok" : "error") : "running");
        let line = frame.call ? view.tools.get(frame.call) : null;
        if (!line) {
          const d = draft(frame.turn);
          const id = frame.turn + ":" + (frame.call || frame.name);
          line = d.querySelector('.tool[data-live="' + CSS.escape(id) + '"]');
          if (!line) {
            line = toolLine(frame.name, frame.summary || "", null);
            line.dataset.live = id;
            d.insertBefore(line, d.querySelector(".text"));
          }
        }
        if (state !== "running") finishTool(line, state);
        break;
      }
      case "reply":
        dropDraft(frame.turn);
        setWorking(false);
        sync();
        sidebar.refresh();
        return;
      case "error":
        dropDraft(frame.turn);
        setWorking(false);
        messages.append(bubble("error", frame.text));
        sync();
        break;
      case "command":
        answerPrompts();
        if (view.stopping) {
          view.stopping = false;
          stopDrafts();
        }
        messages.append(bubble("command", frame.text));
        sync();
        break;
      case "notice":
        systemLine(frame.text, "notice");
        break;
      case "prompt":
        showPrompt(frame.text);
        break;
    }
    scrollDown();
  }

  function showPrompt(text) {
    const open = [...messages.querySelectorAll(".prompt:not(.answered)")].find((p) => p.dataset.text === text);
    if (open) return;
    const choices = [["Approve", "/approve"], ["Approve always", "/approve always"], ["Deny", "/deny"]];
    const card = el("div", { class: "prompt", role: "group", "aria-label": "Approval needed", dataset: { text } },
      el("div", { class: "text" }, text),
      el("div", { class: "prompt-actions" }, choices.map(([label, command]) =>
        el("button", { type: "button", class: command === "/deny" ? "danger" : "primary", onclick: () => answer(card, command) }, label))));
    messages.append(card);
    setWorking(false);
  }

  function answer(card, command) {
    if (!command || sendCommand(command)) {
      card.classList.add("answered");
      card.querySelectorAll("button").forEach((b) => (b.disabled = true));
    }
  }

  function answerPrompts() {
    messages.querySelectorAll(".prompt:not(.answered)").forEach((card) => answer(card, null));
  }

  // ---- the event stream and reconnection ------------------------------------------------------
  let stream = null;
  let attempt = 0;
  let isConnected = false;
  let retryTimer = null;

  function setConnection(state, text) {
    const pill = $("connection");
    pill.className = "pill " + state;
    pill.textContent = text;
    document.body.dataset.connection = state;
  }

  function connected() {
    isConnected = true;
    attempt = 0;
    setConnection("connected", "connected");
    clearDrafts();
    sync().then(flushOutbox);
  }

  function disconnected() {
    isConnected = false;
    setConnection("reconnecting", "reconnecting…");
    markQueued();
    const delay = Math.min(8000, 400 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    attempt++;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, delay);
  }

  async function connect() {
    if (stream) stream.abort();
    const ctrl = new AbortController();
    stream = ctrl;
    const id = view.id;
    let res;
    try {
      res = await fetch("/chat/api/stream?c=" + encodeURIComponent(id), {
        signal: ctrl.signal, credentials: "same-origin", headers: { Accept: "text/event-stream" },
      });
      if (res.status === 401) {
        await Herald.login();
        if (stream === ctrl) connect();
        return;
      }
      if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
      await readEvents(res.body, ctrl);
    } catch (e) {
      /* reconnect below */
    }
    if (stream === ctrl && !ctrl.signal.aborted) disconnected();
  }

  async function readEvents(body, ctrl) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    while (!ctrl.signal.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (data && stream === ctrl) onFrame(JSON.parse(data));
      }
    }
  }

  // ---- sending --------------------------------------------------------------------------------
  function pendingBubble(msg) {
    const shown = msg.text || msg.label || (msg.attachments ? "[image]" : "");
    const b = bubble("user", shown, { cls: "pending", dataset: { client: msg.clientId, text: msg.text } });
    $("empty").hidden = true;
    b.append(el("div", { class: "state" }, isConnected ? "sending…" : "queued: sent when Herald is back"));
    if (!isConnected) b.classList.add("queued");
    messages.append(b);
    scrollDown();
  }

  function markQueued() {
    for (const m of store.outbox) {
      const b = messages.querySelector('.msg.user.pending[data-client="' + m.clientId + '"]');
      if (b) {
        b.classList.add("queued");
        const s = b.querySelector(".state");
        if (s) s.textContent = "queued: sent when Herald is back";
      }
    }
  }

  function submit(text) {
    const c = conversation(view.id);
    if (!c.title) {
      c.title = text.slice(0, 60);
      $("title").textContent = c.title;
    }
    c.updatedAt = new Date().toISOString();
    const msg = { clientId: Herald.randomId("m"), conversation: view.id, text, title: c.title };
    if (attached.length) {
      msg.label = attached.map((a) => a.name).join(", ");
      msg.attachments = attached.splice(0).map((a) => ({ ref: a.ref }));
    }
    showAttached();
    store.outbox.push(msg);
    save();
    sidebar.render();
    pendingBubble(msg);
    if (isConnected) flushOutbox();
  }

  let flushing = false;
  async function flushOutbox() {
    if (flushing || !isConnected) return;
    flushing = true;
    try {
      while (store.outbox.length && isConnected) {
        const msg = store.outbox[0];
        const res = await api("/chat/api/send", { method: "POST", body: msg });
        if (res.status === 0 || res.status === 503 || res.status >= 500) {
          if (res.status === 503) setTimeout(flushOutbox, 2000);
          break; // kept; sent again when the stream is back (the server drops a repeat)
        }
        store.outbox.shift();
        save();
        const b = messages.querySelector('.msg.user.pending[data-client="' + msg.clientId + '"]');
        if (b) {
          b.classList.remove("queued");
          const s = b.querySelector(".state");
          if (!res.ok) {
            b.classList.add("failed");
            if (s) s.textContent = "not sent: " + ((res.data && res.data.error) || res.status);
          } else if (s) {
            s.textContent = "sent";
          }
        }
        if (res.ok && msg.conversation === view.id) {
          setWorking(true);
          sync();
        }
      }
    } finally {
      flushing = false;
    }
  }

  /** Commands are answered at once and never queued: they need a connection. */
  function sendCommand(command) {
    if (!isConnected) {
      systemLine("Herald is not connected; " + command + " was not sent.", "notice");
      return false;
    }
    if (command.trim().toLowerCase() === "/stop") view.stopping = true;
    api("/chat/api/send", { method: "POST", body: { conversation: view.id, clientId: Herald.randomId("k"), text: command } })
      .then((res) => {
        if (!res.ok) systemLine(command + " failed: " + ((res.data && res.data.error) || res.status), "notice");
      });
    return true;
  }

  // ---- the conversation list (chat-sidebar.js) ------------------------------------------------
  const sidebar = HeraldSidebar({
    store, save, conversation, newConversation, notice: (text) => systemLine(text, "notice"),
    current: () => view.id, open: (id) => open(id),
  });

  function open(id) {
    store.current = id;
    save();
    resetView(id);
    sidebar.render();
    for (const m of store.outbox) if (m.conversation === id) pendingBubble(m);
    isConnected = false;
    setConnection("connecting", "connecting…");
    sync();
    connect();
    $("composer-text").focus();
  }

  // ---- start ----------------------------------------------------------------------------------
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const box = $("composer-text");
    const text = box.value.trim();
    if (!text && !attached.length) return;
    box.value = "";
    if (text.startsWith("/") && !store.outbox.length && !attached.length) {
      sendCommand(text);
    } else {
      submit(text);
    }
  });
  $("composer-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  document.querySelectorAll(".suggestion").forEach((b) => b.addEventListener("click", () => submit(b.textContent)));
  // ---- images: uploaded when chosen, sent as references with the next message ----------------
  const attached = [];
  function showAttached() {
    $("composer-attachments").textContent = attached.map((a) => a.name).join(", ");
  }
  $("composer-image").addEventListener("change", async (e) => {
    for (const file of Array.from(e.target.files || []).slice(0, 4 - attached.length)) {
      let res;
      try {
        res = await fetch("/chat/api/upload", { method: "POST", credentials: "same-origin", body: file,
          headers: { "X-Herald-Csrf": "1", "Content-Type": file.type || "application/octet-stream", Accept: "application/json" } });
      } catch (err) {
        res = null;
      }
      const data = res ? await res.json().catch(() => null) : null;
      if (res && res.ok && data && data.ref) {
        attached.push({ ref: data.ref, name: file.name });
      } else {
        systemLine("Image not attached: " + ((data && data.error) || "Herald cannot be reached"), "error");
      }
    }
    e.target.value = "";
    showAttached();
  });
  // ---- voice notes: hold the microphone button to record, release to send -------------------
  const mic = $("composer-mic");
  let recording = null;
  async function startRecording(e) {
    e.preventDefault();
    if (recording || !navigator.mediaDevices || !window.MediaRecorder) {
      if (!window.MediaRecorder) systemLine("This browser cannot record voice notes.", "error");
      return;
    }
    const rec = { chunks: [], started: Date.now(), stopRequested: false };
    recording = rec;
    mic.classList.add("recording");
    mic.setAttribute("aria-pressed", "true");
    try {
      rec.stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (err) {
      recording = null;
      mic.classList.remove("recording");
      mic.removeAttribute("aria-pressed");
      systemLine("The microphone is not available: " + (err && err.message ? err.message : err), "error");
      return;
    }
    rec.recorder = new MediaRecorder(rec.stream);
    rec.recorder.ondataavailable = (ev) => { if (ev.data && ev.data.size) rec.chunks.push(ev.data); };
    rec.recorder.onstop = () => finishRecording(rec);
    rec.recorder.start();
    if (rec.stopRequested) rec.recorder.stop();
  }
  function stopRecording() {
    const rec = recording;
    if (!rec) return;
    recording = null;
    mic.classList.remove("recording");
    mic.removeAttribute("aria-pressed");
    rec.stopRequested = true;
    if (rec.recorder && rec.recorder.state !== "inactive") rec.recorder.stop();
  }
  async function finishRecording(rec) {
    rec.stream.getTracks().forEach((t) => t.stop());
    const ms = Date.now() - rec.started;
    if (ms < 400 || !rec.chunks.length) {
      systemLine("Hold the microphone button while you speak, then let go to send.", "notice");
      return;
    }
    const blob = new Blob(rec.chunks, { type: rec.recorder.mimeType || "audio/webm" });
    let res;
    try {
      res = await fetch("/chat/api/upload", { method: "POST", credentials: "same-origin", body: blob,
        headers: { "X-Herald-Csrf": "1", "Content-Type": blob.type, Accept: "application/json" } });
    } catch (err) {
      res = null;
    }
    const data = res ? await res.json().catch(() => null) : null;
    if (!(res && res.ok && data && data.ref)) {
      systemLine("Voice note not sent: " + ((data && data.error) || "Herald cannot be reached"), "error");
      return;
    }
    attached.push({ ref: data.ref, name: "voice note (" + Math.round(ms / 1000) + " s)" });
    submit("");
  }
  mic.addEventListener("pointerdown", startRecording);
  ["pointerup", "pointercancel", "pointerleave"].forEach((t) => mic.addEventListener(t, stopRecording));
  mic.addEventListener("contextmenu", (e) => e.preventDefault());

  $("cmd-new").addEventListener("click", () => sendCommand("/new"));
  $("cmd-stop").addEventListener("click", () => sendCommand("/stop"));

  (async () => {
    await Herald.ensureAccess();
    const start = store.current && conversation(store.current) ? store.current
      : (store.conversations[0] && store.conversations[0].id) || newConversation().id;
    open(start);
    sidebar.refresh();
  })();
})();
