package io.wheeltimer.spring.autoconfigure;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.Timeout;
import io.wheeltimer.TimerTask;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plain HTTP calls against the running test server, shared by the {@code Http*Test} classes and
 * the durable timeouts' actuator tests.
 */
public final class ActuatorHttp {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

    private final int port;

    public ActuatorHttp(int port) {
        this.port = port;
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** The body of a GET, parsed for JSON path reads. */
    public DocumentContext json(String path) {
        return JsonPath.parse(get(path).body());
    }

    /** A POST without a body, as {@code curl -X POST} sends it. */
    public HttpResponse<String> post(String path) {
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** A DELETE, as {@code curl -X DELETE} sends it. */
    public HttpResponse<String> delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A task that describes itself by a fixed name and counts its runs and cancellations. */
    static final class NamedTask implements TimerTask {
        final String name;
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger cancellations = new AtomicInteger();

        NamedTask(String name) {
            this.name = name;
        }

        @Override
        public void run(Timeout timeout) {
            runs.incrementAndGet();
        }

        @Override
        public void cancelled(Timeout timeout) {
            cancellations.incrementAndGet();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
