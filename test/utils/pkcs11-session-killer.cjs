// Preloaded into a sample process (NODE_OPTIONS=--require <this file>) whose keys are in a PKCS#11
// token: kills the process's token sessions from outside the module, as an HSM that drops its
// sessions (a restart, a failover, an administrator) does. SoftHSM2 keeps sessions per process, so
// this runs in the sample's process, through a second handle on the same library: `close-all`
// closes every session of the token's slot (C_CloseAllSessions), `logout` logs the application out
// of the token (C_Logout, which ends the login of every session). It listens on the Unix socket
// PKCS11_SESSION_KILLER names and answers `ok` or `error <reason>` per line.
//
// The kill lands between two token calls, never during one: SoftHSM2 frees a session's state when
// it is closed, so closing it while another thread runs an operation on it crashes the process (a
// network HSM answers such a call with an error instead). Calls that were set up (C_EncryptInit)
// but not yet run when the kill lands run on the killed sessions and fail as the token answers.
'use strict';
const { createServer } = require('node:net');
const { setImmediate } = require('node:timers');

const socketPath = process.env.PKCS11_SESSION_KILLER;
if (socketPath) {
  const pkcs11js = require('pkcs11js');
  let inFlight = 0;
  /** While a kill lands: token calls started meanwhile wait for it. */
  let gate;
  // pkcs11js defines its promise methods on each instance: every instance the module makes counts
  // the operations it runs on libuv's threads.
  const Pkcs11 = pkcs11js.PKCS11;
  pkcs11js.PKCS11 = class extends Pkcs11 {
    constructor(...args) {
      super(...args);
      for (const name of Object.keys(this)) {
        const call = this[name];
        if (!/^C_\w+Async$/.test(name) || typeof call !== 'function') continue;
        this[name] = async (...callArgs) => {
          while (gate) await gate;
          inFlight++;
          try {
            return await call.apply(this, callArgs);
          } finally {
            inFlight--;
          }
        };
      }
    }
  };

  let token;
  const connect = () => {
    const api = new Pkcs11();
    api.load(process.env.PKCS11_MODULE);
    try {
      api.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (error) {
      if (error.code !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
    }
    const slot = api
      .C_GetSlotList(true)
      .find((each) => api.C_GetTokenInfo(each).label.trim() === process.env.PKCS11_TOKEN_LABEL);
    if (!slot) throw new Error('no such token');
    return { api, slot };
  };
  const kill = (command) => {
    token ??= connect();
    const { api, slot } = token;
    if (command === 'close-all') return api.C_CloseAllSessions(slot);
    if (command === 'logout') {
      const session = api.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
      try {
        api.C_Logout(session);
      } finally {
        api.C_CloseSession(session);
      }
      return;
    }
    throw new Error(`unknown command ${command}`);
  };
  const killBetweenCalls = async (command) => {
    let open;
    gate = new Promise((resolve) => (open = resolve));
    try {
      while (inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
      kill(command);
    } finally {
      gate = undefined;
      open();
    }
  };

  const server = createServer((socket) => {
    let buffer = '';
    let queue = Promise.resolve();
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const command = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        queue = queue.then(() =>
          killBetweenCalls(command).then(
            () => socket.write('ok\n'),
            (error) => socket.write(`error ${error.code ?? ''} ${error.message}\n`),
          ),
        );
      }
    });
    socket.on('error', () => undefined);
  });
  server.listen(socketPath);
  server.unref();
}
