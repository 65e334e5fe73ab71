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
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * What the throwaway database servers share: a free port to start on (and another when the first was
 * taken meanwhile), the start of the server's process and the wait for its first connection, a command
 * run to its end, their log read from where a command began (for the error that command's failure
 * reports), the check of a database name, and at a close the shutdown hook let go of and the directory
 * deleted.
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
     * Sets a server up on a free port of {@code host}: {@code launch} starts it on the port it is given, and
     * throws {@link IllegalStateException} if it does not come up. Another process may bind the port between
     * {@link #freePort} and the server's bind: when what the server added to {@code log} meanwhile contains
     * one of {@code portTaken}, it is launched again on another port, {@code attempts} times at most.
     */
    public static void startOnFreePort(String host, int attempts, Path log, IntConsumer launch, String... portTaken) {
        for (int attempt = 1; ; attempt++) {
            long logStart = logSize(log);
            try {
                launch.accept(freePort(host));
                return;
            } catch (IllegalStateException e) {
                String added = readLog(log, logStart);
                if (attempt == attempts || List.of(portTaken).stream().noneMatch(added::contains)) {
                    throw e;
                }
            }
        }
    }

    /** A process builder for {@code command} in {@code directory}, its output and errors written to {@code output}. */
    public static ProcessBuilder processBuilder(List<String> command, Path directory, Path output) {
        return new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
    }

    /**
     * Starts {@code command} in {@code directory}, its output and errors written to {@code output};
     * {@code server} names the server in the error when it cannot be run.
     */
    public static Process start(String server, List<String> command, Path directory, Path output) {
        try {
            return processBuilder(command, directory, output).start();
        } catch (IOException e) {
            throw new UncheckedIOException(server + ": could not run " + String.join(" ", command), e);
        }
    }

    /**
     * Runs what {@code builder} (from {@link #processBuilder}, writing to {@code output}) starts until it
     * ends, for at most {@code timeout}; fails if it fails or takes longer, with the command, its output
     * and then what {@code diagnostics} adds (a server's log, say). {@code server} and {@code what} name
     * the server and the command in the error.
     */
    public static void runToCompletion(
            String server,
            String what,
            ProcessBuilder builder,
            Path output,
            Duration timeout,
            Supplier<String> diagnostics) {
        String command = String.join(" ", builder.command());
        try {
            Process process = builder.start();
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.destroyForcibly();
            }
            if (!finished || process.exitValue() != 0) {
                throw new IllegalStateException(server + ": " + what + " "
                        + (finished ? "failed with exit code " + process.exitValue() : "took over " + timeout)
                        + "\n  command: " + command
                        + "\n--- its output ---\n" + Files.readString(output, StandardCharsets.UTF_8)
                        + diagnostics.get());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(server + ": could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(server + ": interrupted during " + what, e);
        }
    }

    /**
     * Waits at most {@code timeout} for {@code process} to end; whether it ended. An interrupt ends the wait
     * early (the thread's flag set again).
     */
    public static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
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
     * {@code database} if it is a name no SQL needs to quote: 1 to {@code maxLength} lower-case letters,
     * digits and {@code _}, not starting with a digit.
     *
     * @throws IllegalArgumentException otherwise, naming it
     */
    public static String checkDatabaseName(String database, int maxLength) {
        if (database == null || !Pattern.matches("[a-z_][a-z0-9_]{0," + (maxLength - 1) + "}", database)) {
            throw new IllegalArgumentException("database name '" + database + "' is not allowed: use 1 to " + maxLength
                    + " lower-case letters, digits and _, not starting with a digit");
        }
        return database;
    }

    /** Deletes a server's {@code directory} at its close, if it is there; {@code server} names it in the error. */
    public static void deleteDirectory(String server, Path directory) {
        try {
            if (Files.exists(directory)) {
                Directories.deleteRecursively(directory);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete the " + server + " test directory " + directory, e);
        }
    }

    /**
     * Runs a server's {@code close}, from its shutdown hook: a failure is printed to the standard error,
     * prefixed by {@code server}, since nothing can catch it there.
     */
    public static void closeQuietly(String server, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            System.err.println(server + ": " + e);
        }
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
