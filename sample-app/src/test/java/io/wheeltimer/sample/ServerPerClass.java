package io.wheeltimer.sample;

import io.wheeltimer.testsupport.ThrowawayServer;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A throwaway database server shared by the tests of a class ({@code @RegisterExtension static}): started
 * before them, closed after them.
 */
final class ServerPerClass<S extends ThrowawayServer> implements BeforeAllCallback, AfterAllCallback {

    private final Supplier<S> start;
    private S server;

    ServerPerClass(Supplier<S> start) {
        this.start = start;
    }

    /** The server, while the class's tests run. */
    S get() {
        return server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = start.get();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
        }
    }
}
