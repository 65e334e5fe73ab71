package io.wheeltimer.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * What the throwaway database servers share: a free port to start on, the start of the server's process
 * and the wait for its first connection, their log read from where a command began (for the error that
 * command's failure reports), and the shutdown hook let go of at a close.
 */
public final class ThrowawayServers {

    private ThrowawayServers() {}

    /**
     * A TCP port of {@code host} that was free a moment ago. Another process may take it before the server
     * binds it: a server retries with another when its log says so.
     */
    public static int freePort(String host) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not find a free port on " + host, e);
        }
    }

    /** What {@link #awaitConnection} saw: whether a connection opened, else the last connection error, if any. */
    public record Awaited(boolean accepting, SQLException lastError) {}

    /**
     * Starts {@code command} in {@code directory}, its output and errors written to {@code output};
     * {@code server} names the server in the error when it cannot be run.
     */
    public static Process start(String server, List<String> command, Path directory, Path output) {
        try {
            return new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(server + ": could not run " + String.join(" ", command), e);
        }
    }

    /**
     * Tries to connect to {@code url} as {@code user} (no password) every 50 ms while {@code process}
     * lives, for at most {@code timeout}, or until this thread is interrupted (its flag then set again).
     */
    public static Awaited awaitConnection(Process process, String url, String user, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        SQLException last = null;
        while (process.isAlive() && System.nanoTime() - end < 0) {
            try (Connection connection = DriverManager.getConnection(url, user, "")) {
                return new Awaited(true, null);
            } catch (SQLException e) {
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return new Awaited(false, last);
    }

    /**
     * Lets go of a server's {@code shutdownHook}, at its close; from another hook or during exit that
     * cannot be done, and the hook then runs the close again, which does nothing the second time.
     */
    public static void removeShutdownHook(Thread shutdownHook) {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook runs close() too, which then does nothing.
        }
    }

    /** The size of {@code log} in bytes; 0 if it is not there (yet) or cannot be read. */
    public static long logSize(Path log) {
        try {
            return Files.size(log);
        } catch (IOException e) {
            return 0;
        }
    }

    /** {@code log} from byte {@code from} on: what one command added to it; says so if there is none. */
    public static String readLog(Path log, long from) {
        try (SeekableByteChannel channel = Files.newByteChannel(log)) {
            channel.position(from);
            return new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "(none written)\n";
        } catch (IOException e) {
            return "(unreadable: " + e + ")\n";
        }
    }
}
