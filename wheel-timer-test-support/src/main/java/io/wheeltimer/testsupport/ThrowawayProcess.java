package io.wheeltimer.testsupport;

import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The life of a throwaway server's process: the temporary directory it lives in, the port of
 * {@value #HOST} it takes at its start and keeps, a shutdown hook that ends it with the JVM, and a close
 * that ends it and deletes the directory, once. The subclass starts and stops the process itself.
 *
 * <p>Thread-safe: a subclass guards its own state with this object's monitor, as this class does.
 */
public abstract class ThrowawayProcess implements AutoCloseable {

    /** The address every throwaway server listens on. */
    protected static final String HOST = "127.0.0.1";

    private final String server;
    private final Path directory;
    private final Thread shutdownHook;
    private int port;
    private boolean closed;

    /**
     * @param server what the server is, in errors ("MariaDB")
     * @param directory the temporary directory it lives in, deleted at its close
     * @param hookThread the name of its shutdown hook's thread
     */
    protected ThrowawayProcess(String server, Path directory, String hookThread) {
        this.server = server;
        this.directory = directory;
        this.shutdownHook = new Thread(this::closeQuietly, hookThread);
    }

    /**
     * Runs {@code startUp}, which starts the server; if it fails, ends what it started and deletes the
     * directory, and rethrows; else has the JVM's exit close the server if no one does before.
     */
    protected final void startUp(Runnable startUp) {
        try {
            startUp.run();
        } catch (RuntimeException e) {
            closeQuietly();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Runs {@code launch}, which starts the server on {@link #port()}, on a free port; on another if the
     * server's {@code log} says one of {@code portTaken} ({@link ThrowawayServers#startOnFreePort}).
     */
    protected final synchronized void launchOnFreePort(int attempts, Path log, Runnable launch, String... portTaken) {
        ThrowawayServers.startOnFreePort(
                HOST,
                attempts,
                log,
                free -> {
                    port = free;
                    launch.run();
                },
                portTaken);
    }

    /** The TCP port on 127.0.0.1; the same for the server's whole life. */
    public synchronized int port() {
        return port;
    }

    /** The directory the server lives in. */
    protected final Path home() {
        return directory;
    }

    /**
     * Ends the server at once ({@link #kill()}) and deletes its directory, data included; later calls do
     * nothing.
     */
    @Override
    public final void close() {
        ThrowawayServers.removeShutdownHook(shutdownHook);
        closeOrThrow();
    }

    /**
     * Ends the server's process at once, if one runs; at the close, which deletes the directory all the same
     * if this throws, and then rethrows.
     */
    protected abstract void kill();

    /** Fails if the server was closed, naming {@code method}. */
    protected final synchronized void checkNotClosed(String method) {
        if (closed) {
            throw new IllegalStateException(method + "() on a closed " + server + " server (port " + port + ")");
        }
    }

    private synchronized void closeOrThrow() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        try {
            kill();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            ThrowawayServers.deleteDirectory(server, directory);
        } catch (UncheckedIOException deleteFailure) {
            if (failure == null) {
                failure = deleteFailure;
            } else {
                failure.addSuppressed(deleteFailure);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void closeQuietly() {
        ThrowawayServers.closeQuietly(getClass().getSimpleName(), this::closeOrThrow);
    }
}
