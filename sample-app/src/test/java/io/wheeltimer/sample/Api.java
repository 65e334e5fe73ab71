package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.ApplicationContext;

/** The sample's HTTP API as a test sees it, on one port. */
final class Api {

    static final Duration PATIENCE = Duration.ofSeconds(30); // a noisy CI machine

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;

    Api(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** The API of {@code app}, started on a random port. */
    static Api of(ApplicationContext app) {
        return new Api(app.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
    }

    /** The address of {@code path} on the application. */
    URI uri(String path) {
        return URI.create(base + path);
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    HttpResponse<String> post(String path, String json) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** Posts these exact bytes as a JSON body, malformed or not. */
    HttpResponse<String> postBytes(String path, byte[] body) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Places an order and returns its id. */
    String place(String item) {
        HttpResponse<String> placed = post("/orders", "{\"item\": \"" + item + "\"}");
        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
        return JsonPath.read(placed.body(), "$.id");
    }

    /** An order just placed: its id, and when it must be paid by. */
    record Placed(String id, Instant payBy) {}

    /** Places an order and returns its id and its payBy. */
    Placed placeDue(String item) {
        HttpResponse<String> placed = post("/orders", "{\"item\": \"" + item + "\"}");
        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
        return new Placed(JsonPath.read(placed.body(), "$.id"), Instant.parse(JsonPath.read(placed.body(), "$.payBy")));
    }

    HttpResponse<String> pay(String id) {
        return post("/orders/" + id + "/payment", "");
    }

    /** Pays order {@code id} {@code times} times at once, all sent before any answer is read; their statuses. */
    List<Integer> payAtOnce(String id, int times) {
        List<CompletableFuture<HttpResponse<String>>> payments = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            payments.add(http.sendAsync(
                    HttpRequest.newBuilder(uri("/orders/" + id + "/payment"))
                            .timeout(PATIENCE)
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        return payments.stream()
                .map(CompletableFuture::join)
                .map(HttpResponse::statusCode)
                .toList();
    }

    String status(String id) {
        return JsonPath.read(get("/orders/" + id).body(), "$.status");
    }

    /** Asserts an RFC 9457 problem detail with this status, and (if given) a detail containing this text. */
    static DocumentContext assertProblem(HttpResponse<String> response, int status, String detailPart) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        DocumentContext problem = JsonPath.parse(response.body());
        assertThat(problem.<Integer>read("$.status")).isEqualTo(status);
        assertThat(problem.<String>read("$.title")).isNotBlank();
        if (detailPart != null) {
            assertThat(problem.<String>read("$.detail")).contains(detailPart);
        }
        return problem;
    }
}
