package io.wheeltimer.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The sample's executable jar, started in a JVM of its own on a free port with a database of its own;
 * its output goes to a log file, shown when it fails to start.
 */
final class SampleProcess implements AutoCloseable {

    private final Process process;
    private final Path log;
    final int port;

    private SampleProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /**
     * Starts {@code java [jvmOptions] -jar jar [properties]} and waits until it answers
     * {@code /actuator/health}.
     *
     * @param jar the repackaged jar
     * @param work a folder for the database and the log
     * @param jvmOptions such as {@code -Dspring.aot.enabled=true}
     * @param properties {@code name=value} pairs, passed as {@code --name=value}
     * @param patience how long the start may take
     */
    static SampleProcess start(Path jar, Path work, List<String> jvmOptions, List<String> properties, Duration patience)
            throws IOException, InterruptedException {
        int port = freePort();
        Files.createDirectories(work);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        command.add("--server.port=" + port);
        command.add("--spring.datasource.url=jdbc:h2:file:"
                + work.toAbsolutePath().resolve("orders") + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0");
        properties.forEach(property -> command.add("--" + property));
        Path log = work.resolve("app.log");
        Process process = new ProcessBuilder(command)
                .directory(work.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        SampleProcess app = new SampleProcess(process, log, port);
        try {
            app.awaitHealth(patience);
        } catch (RuntimeException | Error e) {
            app.close();
            throw e;
        }
        return app;
    }

    private void awaitHealth(Duration patience) throws InterruptedException, IOException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "The sample exited with " + process.exitValue() + " before it answered:\n" + output());
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("The sample did not answer within " + patience + ":\n" + output());
    }

    /** What the application printed so far. */
    String output() throws IOException {
        return Files.readString(log);
    }

    /** Stops the application as a SIGTERM does, and forcibly if it takes longer than 30 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
