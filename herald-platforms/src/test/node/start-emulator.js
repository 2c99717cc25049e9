// Starts the telegram-test-api Bot API emulator for the Telegram adapter tests.
// Usage: node start-emulator.js PORT
// Prints "emulator listening on PORT" once it accepts connections; stops on SIGTERM or when stdin closes.
'use strict';
const TelegramServer = require('telegram-test-api');

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node start-emulator.js PORT');
  process.exit(64);
}

const server = new TelegramServer({ port, host: '127.0.0.1', storeTimeout: 600 });

async function stop() {
  try {
    await server.stop();
  } finally {
    process.exit(0);
  }
}

server.start().then(() => {
  console.log(`emulator listening on ${port}`);
}, (err) => {
  console.error(`emulator failed to start on ${port}: ${err}`);
  process.exit(1);
});

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
