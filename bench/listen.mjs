// What the bench's own small servers share: listen on 127.0.0.1, print 'listening <port>'
// (the harness waits for a connection, the line is for people), and stop on SIGTERM or
// SIGINT with every kept-alive connection closed.

/**
 * @param {import('node:http').Server} server
 * @param {number} port 0 picks a free one
 * @param {() => void} [onStop] what else to close
 */
export function listenUntilStopped(server, port, onStop = () => {}) {
  server.listen(port, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
  });
  const stop = () => {
    onStop();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
