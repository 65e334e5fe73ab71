package io.wheeltimer.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThrowawayServersTest {

    @TempDir
    Path dir;

    @Test
    void readsWhatALogGainedSinceAnOffset() throws Exception {
        Path log = dir.resolve("server.log");
        assertThat(ThrowawayServers.logSize(log)).isZero();
        assertThat(ThrowawayServers.readLog(log, 0)).isEqualTo("(none written)\n");

        Files.writeString(log, "ready\n");
        long start = ThrowawayServers.logSize(log);
        Files.writeString(log, "could not bind: Address already in use\n", StandardOpenOption.APPEND);

        assertThat(start).isEqualTo(6);
        assertThat(ThrowawayServers.readLog(log, start)).isEqualTo("could not bind: Address already in use\n");
        assertThat(ThrowawayServers.readLog(log, 0)).startsWith("ready\n");
    }

    @Test
    void findsAPortTheServerCanBind() throws Exception {
        int port = ThrowawayServers.freePort("127.0.0.1");

        assertThat(port).isBetween(1, 65535);
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }
}
