/*
 * Herald pages: answers as rendered Markdown.
 *
 * marked (vendor/marked.umd.js) turns the Markdown into HTML, showing raw HTML in the answer as text;
 * DOMPurify (vendor/purify.min.js) then keeps only an allowlist of tags and attributes and drops every script,
 * handler, style and javascript: URL; the result is inserted as a DOM fragment (never as an HTML string). Both run in the browser so a streamed answer can be
 * rendered again on every delta without a server round trip; the stored transcript stays Markdown.
 */
"use strict";

const HeraldMarkdown = (() => {
  const TAGS = ["p", "br", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td", "input"];
  const ATTRS = ["href", "title", "start", "align", "class", "type", "checked", "disabled"];

  const escapeHtml = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

  marked.setOptions({ gfm: true, breaks: true, async: false });
  // raw HTML in an answer is shown as text, as on every other platform: markup comes only from Markdown
  marked.use({ renderer: { html: (token) => escapeHtml(typeof token === "string" ? token : token.text) } });

  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
    if (node.tagName === "INPUT" && node.getAttribute("type") !== "checkbox") node.remove();
    if (node.hasAttribute("class") && !/^language-[\w+#.-]{1,32}$/.test(node.getAttribute("class"))) node.removeAttribute("class");
  });

  /** The Markdown as a sanitized fragment, with a copy button on every code block. */
  function render(markdown) {
    const html = marked.parse(markdown || "");
    const fragment = DOMPurify.sanitize(html, {
      ALLOWED_TAGS: TAGS, ALLOWED_ATTR: ATTRS, ADD_ATTR: ["target", "rel"], RETURN_DOM_FRAGMENT: true,
    });
    for (const pre of fragment.querySelectorAll("pre")) {
      const wrap = document.createElement("div");
      wrap.className = "code-block";
      const code = pre.querySelector("code");
      const lang = code && /language-([\w+#.-]+)/.exec(code.className);
      const bar = Herald.el("div", { class: "code-bar" }, Herald.el("span", { class: "code-lang" }, lang ? lang[1] : "code"),
        Herald.el("button", { type: "button", class: "copy-code", onclick: (e) => copy(pre.textContent, e.currentTarget) }, "Copy"));
      pre.replaceWith(wrap);
      wrap.append(bar, pre);
    }
    for (const table of fragment.querySelectorAll("table")) {
      const scroll = Herald.el("div", { class: "table-scroll" });
      table.replaceWith(scroll);
      scroll.append(table);
    }
    return fragment;
  }

  /** Copies text to the clipboard and says so on the button for a moment. */
  async function copy(text, button) {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch (e) {
      const area = Herald.el("textarea", { class: "visually-hidden", "aria-hidden": "true" });
      area.value = text;
      document.body.append(area);
      area.select();
      ok = document.execCommand("copy");
      area.remove();
    }
    if (button) {
      const label = button.textContent;
      button.textContent = ok ? "Copied" : "Copy failed";
      button.classList.add("copied");
      setTimeout(() => { button.textContent = label; button.classList.remove("copied"); }, 1500);
    }
    return ok;
  }

  return { render, copy };
})();
