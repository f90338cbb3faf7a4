// The dashboard's only script (no inline scripts: the CSP forbids them). Live updates of the
// received files (server-sent events -> htmx refetches the rows), the drop zone, copy buttons.
(function () {
  'use strict';
  const csrf = () => document.body.dataset.csrf || '';

  // live updates: any change of a file of this account and mode refetches the list's rows
  const rows = document.getElementById('rows');
  if (rows && window.EventSource) {
    let pending = null;
    const events = new EventSource('/dashboard/events');
    events.addEventListener('change', () => {
      clearTimeout(pending);
      pending = setTimeout(() => window.htmx && window.htmx.trigger(rows, 'refresh'), 150);
    });
  }

  // drag and drop (or choose) PDFs: one POST per file through the same intake as FTP and e-mail
  const zone = document.getElementById('drop-zone');
  const input = document.getElementById('upload-input');
  const results = document.getElementById('upload-results');
  async function upload(files) {
    for (const file of files) {
      const item = document.createElement('li');
      item.textContent = file.name + ': uploading';
      results.appendChild(item);
      try {
        const res = await fetch('/dashboard/upload', {
          method: 'POST',
          headers: { 'content-type': 'application/pdf', 'x-filename': encodeURIComponent(file.name), 'x-csrf-token': csrf() },
          body: file,
          credentials: 'same-origin',
        });
        const body = await res.json().catch(() => ({}));
        item.textContent = file.name + ': ' + (res.ok ? (body.status === 'failed' ? 'refused: ' + body.reason : 'received') : 'not uploaded (' + (body.error || res.status) + ')');
        item.className = res.ok && body.status !== 'failed' ? 'ok' : 'bad';
      } catch (e) {
        item.textContent = file.name + ': not uploaded (' + e.message + ')';
        item.className = 'bad';
      }
    }
    if (rows && window.htmx) window.htmx.trigger(rows, 'refresh');
  }
  if (zone && input) {
    zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => { e.preventDefault(); zone.classList.remove('over'); upload(Array.from(e.dataTransfer.files)); });
    input.addEventListener('change', () => { upload(Array.from(input.files)); input.value = ''; });
  }

  // copy buttons (the new API key)
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const text = document.getElementById(button.dataset.copy).textContent;
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = 'Copied';
      } catch {
        window.getSelection().selectAllChildren(document.getElementById(button.dataset.copy));
        button.textContent = 'Selected: press Ctrl+C';
      }
    });
  }
})();
