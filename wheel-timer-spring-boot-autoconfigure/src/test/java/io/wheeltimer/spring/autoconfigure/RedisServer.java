package io.wheeltimer.spring.autoconfigure;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway {@code redis-server} (Debian's package, which the build installs when missing): on a
 * free loopback port, in a temporary directory, with no persistence; {@link #close()} stops it and
 * deletes the directory.
 */
final class RedisServer implements AutoCloseable {

    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int REPLY_TIMEOUT_MILLIS = 30_000;
    private static final InetAddress LOOPBACK = loopback();

    private final Path directory;
    private final Process process;
    private final int port;

    private RedisServer(Path directory, Process process, int port) {
        this.directory = directory;
        this.process = process;
        this.port = port;
    }

    /** Starts a server and returns once it answers {@code PING}. */
    static RedisServer start() throws IOException, InterruptedException {
        String executable = executable();
        Path directory = Files.createTempDirectory("wheel-timer-redis-");
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // another process may take the free port first
            int port = freePort();
            Process process = new ProcessBuilder(List.of(
                            executable,
                            "--port",
                            String.valueOf(port),
                            "--bind",
                            "127.0.0.1",
                            "--dir",
                            directory.toString(),
                            "--save",
                            "",
                            "--appendonly",
                            "no"))
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("redis-" + port + ".log").toFile())
                    .start();
            RedisServer server = new RedisServer(directory, process, port);
            try {
                server.awaitPong();
                return server;
            } catch (IOException e) {
                last = e;
                server.stopProcess();
            }
        }
        deleteDirectory(directory);
        throw last;
    }

    int port() {
        return port;
    }

    /**
     * Sends one command on a connection of its own and returns the first line of the reply; waits
     * for the reply as long as the server takes (a paused server answers when the pause ends).
     */
    String command(String... arguments) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), REPLY_TIMEOUT_MILLIS);
            socket.setSoTimeout(REPLY_TIMEOUT_MILLIS);
            StringBuilder request =
                    new StringBuilder().append('*').append(arguments.length).append("\r\n");
            for (String argument : arguments) {
                request.append('$')
                        .append(argument.getBytes(StandardCharsets.UTF_8).length)
                        .append("\r\n")
                        .append(argument)
                        .append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("redis-server on port " + port + " closed the connection without a reply");
            }
            return reply;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stopProcess();
        deleteDirectory(directory);
    }

    private void awaitPong() throws IOException, InterruptedException {
        long start = System.nanoTime();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with " + process.exitValue() + " on port " + port + ": "
                        + Files.readString(directory.resolve("redis-" + port + ".log")));
            }
            try {
                if ("+PONG".equals(command("PING"))) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() - start > START_TIMEOUT_NANOS) {
                throw new IOException("redis-server on port " + port + " did not answer PING within 30 s");
            }
            Thread.sleep(50); // polling a starting process: there is no event to wait for
        }
    }

    private void stopProcess() throws InterruptedException {
        process.destroy(); // SIGTERM: redis-server shuts down (nothing to save)
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String executable() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        if (Files.isExecutable(Path.of("/usr/bin/redis-server"))) {
            return "/usr/bin/redis-server";
        }
        throw new IllegalStateException("redis-server is not installed (the build's ensure-redis.sh installs"
                + " Debian's redis-server package when run as root): apt-get install -y redis-server");
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteDirectory(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
