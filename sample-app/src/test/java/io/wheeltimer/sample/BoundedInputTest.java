package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The body and the item are bounded, and every error (400, 404, 413, 500, and Tomcat's own 400s)
 * is a problem detail: a 1 MB item is refused, {"item": 42} is not taken as "42", NUL is refused,
 * and neither Boot's error JSON nor Tomcat's HTML pages reach the client.
 */
@SampleWebTest(properties = {"spring.datasource.url=jdbc:h2:file:./target/test-db/input-${random.uuid}"})
@Import(BoundedInputTest.Failing.class)
class BoundedInputTest {

    /** Only for this test: an endpoint that fails unexpectedly. */
    @TestConfiguration
    @RestController
    static class Failing {
        @GetMapping("/test-failure")
        String fail() {
            throw new IllegalStateException("boom");
        }
    }

    private Api api;

    @BeforeEach
    void connect(Api api) {
        this.api = api;
    }

    @Nested
    class TheBody {

        @Test
        void aMegabyteItemIsA413AndNotStored() {
            String big = "x".repeat(1 << 20);
            assertProblem(api.post("/orders", "{\"item\": \"" + big + "\"}"), 413, "4096 bytes");
            assertThat(api.get("/orders").body()).doesNotContain("xxxxxxxx");
        }

        @Test
        void aChunkedBodyOverTheLimitIsA413() {
            byte[] chunk = ("{\"item\": \"" + "y".repeat(1000)).getBytes();
            // No Content-Length: the limit is enforced while reading.
            HttpRequest.BodyPublisher chunked = HttpRequest.BodyPublishers.fromPublisher(
                    HttpRequest.BodyPublishers.ofByteArrays(() -> new Iterator<>() {
                        int n;

                        public boolean hasNext() {
                            return n < 8;
                        }

                        public byte[] next() {
                            n++;
                            return n == 1 ? chunk : "y".repeat(1000).getBytes();
                        }
                    }));
            HttpResponse<String> response = api.send(HttpRequest.newBuilder(api.uri("/orders"))
                    .header("Content-Type", "application/json")
                    .POST(chunked));
            assertProblem(response, 413, "orders.max-request-size");
        }

        @Test
        void overlongUtf8IsA400AndNotStored() {
            // Decoded leniently, C0 BC is '<' and E0 80 AF is '/': shortest-form UTF-8 only.
            assertThat(assertProblem(api.postBytes("/orders", item(0xC0, 0xBC)), 400, "not valid UTF-8")
                            .<String>read("$.detail"))
                    .contains("C0", "offset 11");
            assertThat(assertProblem(api.postBytes("/orders", item(0xE0, 0x80, 0xAF)), 400, "not valid UTF-8")
                            .<String>read("$.detail"))
                    .contains("E0", "offset 11");
            assertProblem(api.postBytes("/orders", item(0xFF)), 400, null);
            assertThat(api.get("/orders?size=500").body()).doesNotContain("a<b", "a/b");
        }

        /** {"item": "a…b"} with these bytes in place of the dots; the first one at offset 11. */
        private static byte[] item(int... bytes) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes("{\"item\": \"a".getBytes(StandardCharsets.US_ASCII));
            for (int b : bytes) {
                body.write(b);
            }
            body.writeBytes("b\"}".getBytes(StandardCharsets.US_ASCII));
            return body.toByteArray();
        }

        @Test
        void notAJsonObjectIsA400() {
            assertProblem(api.post("/orders", "[\"book\"]"), 400, null);
            assertProblem(api.post("/orders", "{\"item\": "), 400, null);
        }
    }

    @Nested
    class TheItem {

        /** An item that is not text, or is text no one can read, is refused; the detail says why. */
        @ParameterizedTest(name = "{0}: {1}")
        @CsvSource(delimiter = '|', textBlock = """
                42                         | JSON string
                true                       | JSON string
                {"a": 1}                   | JSON string
                "bo\\u0000ok"              | U+0000
                "bo\\u001bok"              | U+001B
                "bo\\ud800ok"              | U+D800
                "bo\\udc00ok"              | U+DC00
                "\\u00a0"                  | non-blank
                " \\u2007\\u202f\\u3000 "    | non-blank
                "\\u200d"                  | non-blank
                """)
        void anItemThatIsNotVisibleTextIsA400(String item, String detail) {
            assertProblem(api.post("/orders", "{\"item\": " + item + "}"), 400, detail);
        }

        @Test
        void moreThan200CharactersIsA400AndExactly200IsFine() {
            assertProblem(api.post("/orders", "{\"item\": \"" + "a".repeat(201) + "\"}"), 400, "at most 200");
            assertThat(api.post("/orders", "{\"item\": \"" + "a".repeat(200) + "\"}")
                            .statusCode())
                    .isEqualTo(201);
        }

        @Test
        void textWithJoinersAndSoftHyphensIsAcceptedAsSent() {
            List<String> items = List.of(
                    "\uD83D\uDC69\u200D\uD83D\uDCBB", // woman technologist: two emoji joined by ZWJ
                    "Kaffee\u00ADmaschine", // a soft hyphen, where the word may break
                    "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645"); // Persian, with a ZWNJ
            for (String item : items) {
                HttpResponse<String> placed = api.post("/orders", "{\"item\": \"" + item + "\"}");
                assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
                assertThat(JsonPath.<String>read(placed.body(), "$.item")).isEqualTo(item);
            }
        }

        @Test
        void noBreakSpacesAroundAnItemAreTrimmed() {
            HttpResponse<String> placed = api.post("/orders", "{\"item\": \"\\u00a0 book\\u00a0\"}");
            assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
            assertThat(JsonPath.<String>read(placed.body(), "$.item")).isEqualTo("book");
        }

        @Test
        void printableUnicodeIsAccepted() {
            assertThat(api.post("/orders", "{\"item\": \"Bücher \uD83D\uDCDA\"}")
                            .statusCode())
                    .isEqualTo(201);
        }
    }

    @Nested
    class EveryError {

        @Test
        void anUnknownPathIsA404Problem() {
            assertProblem(api.get("/no/such/path"), 404, null);
        }

        @Test
        void anUnknownTimerOnTheActuatorIsA404Problem() {
            assertProblem(api.get("/actuator/wheeltimer/noSuchTimer"), 404, null);
        }

        @Test
        void anUnexpectedFailureIsA500ProblemWithoutItsMessage() {
            HttpResponse<String> response = api.get("/test-failure");
            assertProblem(response, 500, null);
            assertThat(response.body()).doesNotContain("boom");
        }

        @Test
        void tomcatsOwnRejectionsOfEncodedSlashAndNulAreProblems() {
            assertProblem(api.get("/orders/a%2Fb"), 400, null);
            assertProblem(api.get("/orders/a%00b"), 400, null);
        }

        @Test
        void aWrongMethodIsA405Problem() {
            assertProblem(api.send(HttpRequest.newBuilder(api.uri("/orders")).DELETE()), 405, null);
        }
    }
}
