// The dashboard's only script (no inline scripts: the CSP forbids them). Live updates of the
// received files (server-sent events -> htmx refetches the rows), the drop zone, copy buttons.
(function () {
  'use strict';
  const csrf = () => document.body.dataset.csrf || '';
  const words = JSON.parse(document.body.dataset.words || '{}');

  // times show in the browser's time zone: the page tells the session once, then shows itself again
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (document.body.dataset.tz !== undefined && zone && document.body.dataset.tz !== zone) {
    fetch('/dashboard/time-zone', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf() }, body: JSON.stringify({ timeZone: zone }), credentials: 'same-origin' })
      .then((res) => { if (res.status === 204) window.location.reload(); })
      .catch(() => {});
  }

  // live updates: any change of a file of this account and mode refetches the list's rows; the
  // note under the filters says when the connection is lost and when it is back
  const rows = document.getElementById('rows');
  const note = document.getElementById('live-note');
  if (rows && window.EventSource) {
    let pending = null;
    let lost = false;
    const usual = note ? note.textContent : '';
    const refresh = () => window.htmx && window.htmx.trigger(rows, 'refresh');
    const events = new EventSource('/dashboard/events');
    events.addEventListener('change', () => {
      clearTimeout(pending);
      pending = setTimeout(refresh, 150);
    });
    events.addEventListener('error', () => {
      if (lost || !note) return;
      lost = true;
      note.textContent = words.lost;
      note.className = 'hint live-lost';
    });
    events.addEventListener('open', () => {
      if (!lost || !note) return;
      lost = false;
      note.textContent = words.back;
      note.className = 'hint live-back';
      refresh();
      setTimeout(() => { if (!lost) { note.textContent = usual; note.className = 'hint'; } }, 10_000);
    });
  }

  // drag and drop (or choose) PDFs: one POST per file through the same intake as FTP and e-mail
  const drop = document.getElementById('drop-zone');
  const input = document.getElementById('upload-input');
  const results = document.getElementById('upload-results');
  async function upload(files) {
    for (const file of files) {
      const item = document.createElement('li');
      item.textContent = file.name + ': ' + words.sending;
      results.appendChild(item);
      try {
        const res = await fetch('/dashboard/upload', {
          method: 'POST',
          headers: { 'content-type': 'application/pdf', 'x-filename': encodeURIComponent(file.name), 'x-csrf-token': csrf() },
          body: file,
          credentials: 'same-origin',
        });
        const body = await res.json().catch(() => ({}));
        item.textContent = file.name + ': ' + (res.ok ? (body.status === 'failed' ? words.refused + ': ' + body.reason : words.received) : words.notSent.replace('{status}', body.detail || res.status));
        item.className = res.ok && body.status !== 'failed' ? 'ok' : 'bad';
      } catch (e) {
        item.textContent = file.name + ': ' + words.notSent.replace('{status}', e.message);
        item.className = 'bad';
      }
    }
    if (rows && window.htmx) window.htmx.trigger(rows, 'refresh');
  }
  if (drop && input) {
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); upload(Array.from(e.dataTransfer.files)); });
    input.addEventListener('change', () => { upload(Array.from(input.files)); input.value = ''; });
  }

  // copy buttons (the new API key)
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const text = document.getElementById(button.dataset.copy).textContent;
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = words.copied;
      } catch {
        window.getSelection().selectAllChildren(document.getElementById(button.dataset.copy));
        button.textContent = words.selected;
      }
    });
  }
})();
