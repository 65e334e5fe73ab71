package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Twenty payments of one order at once: the provider charges it once, one answer is 200, the rest 409. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "orders.provider-latency=500ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/concurrent-${random.uuid}"
        })
class ConcurrentPaymentTest {

    @LocalServerPort
    int port;

    @Autowired
    PaymentProvider provider;

    @Test
    void twentyParallelPaymentsMakeOneChargeOne200AndNineteen409s() {
        Api api = new Api(port);
        String id = api.place("book");
        long chargesBefore = provider.charges();

        HttpClient http = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> payments = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            payments.add(http.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/" + id + "/payment"))
                            .timeout(Api.PATIENCE)
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = payments.stream()
                .map(CompletableFuture::join)
                .map(HttpResponse::statusCode)
                .toList();

        assertThat(provider.charges() - chargesBefore).isEqualTo(1);
        assertThat(statuses.stream().filter(s -> s == 200)).hasSize(1);
        assertThat(statuses.stream().filter(s -> s == 409)).hasSize(19);
        assertThat(api.status(id)).isEqualTo("PAID");
    }
}
