import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bounded load on a running sample: REQUESTS orders placed by CLIENTS concurrent clients (every
 * other one paid at once), then, after the payment window, a check that none is left PENDING_PAYMENT.
 * Run: java LoadTest.java [base-url] [requests] [clients] [window-seconds]
 */
public class LoadTest {

    public static void main(String[] args) throws Exception {
        String base = args.length > 0 ? args[0] : "http://127.0.0.1:8080";
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        long windowSeconds = args.length > 3 ? Long.parseLong(args[3]) : 30;
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        Pattern idPattern = Pattern.compile("\"id\":\"([^\"]+)\"");

        // Warm-up, not measured.
        for (int i = 0; i < 200; i++) {
            post(http, base + "/orders", "{\"item\": \"warm-up\"}");
        }
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> paid = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            Thread thread = new Thread(() -> {
                int n;
                while ((n = next.getAndIncrement()) < requests) {
                    try {
                        long t0 = System.nanoTime();
                        HttpResponse<String> placed = post(http, base + "/orders", "{\"item\": \"load " + n + "\"}");
                        latencies.add(System.nanoTime() - t0);
                        if (placed.statusCode() != 201) {
                            failures.incrementAndGet();
                            continue;
                        }
                        if (n % 2 == 0) {
                            Matcher m = idPattern.matcher(placed.body());
                            m.find();
                            if (post(http, base + "/orders/" + m.group(1) + "/payment", "").statusCode() == 200) {
                                paid.add(m.group(1));
                            }
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("%d orders (half of them paid) by %d clients in %.1f s: %.0f orders/s; POST /orders p50 %.1f ms, p99 %.1f ms; %d failed%n",
                requests, clients, seconds, requests / seconds, pct(sorted, 0.50), pct(sorted, 0.99), failures.get());

        Thread.sleep(Duration.ofSeconds(windowSeconds + 2).toMillis());
        // GET /orders answers pages of at most 500, newest first: read them all.
        long pending = 0;
        long paidCount = 0;
        long cancelled = 0;
        Pattern total = Pattern.compile("\"totalElements\":(\\d+)");
        for (int page = 0; ; page++) {
            String body = http.send(HttpRequest.newBuilder(URI.create(base + "/orders?size=500&page=" + page)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            pending += count(body, "PENDING_PAYMENT");
            paidCount += count(body, "\"PAID\"");
            cancelled += count(body, "CANCELLED");
            Matcher m = total.matcher(body);
            if (!m.find() || (page + 1) * 500L >= Long.parseLong(m.group(1))) {
                break;
            }
        }
        System.out.printf("after the window: %d PENDING_PAYMENT, %d PAID (%d payments answered 200), %d CANCELLED%n",
                pending, paidCount, paid.size(), cancelled);
        if (pending != 0) {
            System.exit(1);
        }
    }

    private static HttpResponse<String> post(HttpClient http, String uri, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double pct(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
    }

    private static long count(String text, String word) {
        return Pattern.compile(Pattern.quote(word)).matcher(text).results().count();
    }
}
