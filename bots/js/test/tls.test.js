'use strict';
// TLS options (node --test): --tls uses the system roots; --tls-ca FILE reads the PEM to trust and implies TLS.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs } = require('../bot');

const BASE = ['--target', 'localhost:50051', '--token', 'mybot.x'];

test('plaintext unless --tls or --tls-ca', () => {
  const options = parseArgs(BASE, {});
  assert.equal(options.tls, false);
  assert.equal(options.tlsCaPem, undefined);
  assert.equal(parseArgs([...BASE, '--tls'], {}).tls, true);
});

test('--tls-ca reads the certificate and implies --tls', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uno-arena-tls-'));
  const file = path.join(dir, 'ca.pem');
  fs.writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const options = parseArgs([...BASE, `--tls-ca=${file}`], {});
  assert.equal(options.tls, true);
  assert.ok(options.tlsCaPem.toString().includes('BEGIN CERTIFICATE'));
});

test('a missing CA file is a usage error naming it', () => {
  assert.throws(() => parseArgs([...BASE, '--tls-ca', '/nonexistent/ca.pem'], {}),
    /cannot read the TLS CA file \/nonexistent\/ca.pem/);
});
