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

/**
 * What the throwaway database servers share: a free port to start on, and their log read from where a
 * command began, for the error that command's failure reports.
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
