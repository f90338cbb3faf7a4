// The FTP channel reaches into ftp-srv's private state only through src/channels/ftp/ftp-srv-internals.ts,
// checked against ftp-srv 4.6.3: this fails when an upgrade (or a change to package.json) moves it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FTP_SRV_VERSION, ftpSrvShapeProblems } from '../../src/channels/ftp/ftp-srv-internals.ts';

describe('the ftp-srv adapter', () => {
  it('is pinned to the installed ftp-srv, whose private state is where the adapter expects it', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8'));
    expect(pkg.dependencies['ftp-srv']).toBe(FTP_SRV_VERSION);
    expect(ftpSrvShapeProblems()).toEqual([]);
  });

  it('is the only module of the channel that names ftp-srv internals', () => {
    const dir = path.resolve('src/channels/ftp');
    const offenders = fs.readdirSync(dir).filter((f) => f !== 'ftp-srv-internals.ts' && /commandSocket|restByteCount|commands\.handle|srv\.server\b|\.connections\b|createRequire|ftp-srv\/src|'connect'/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
