package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;

/** A task's pending list: soonest first, 50 a page, next and previous by keyset links. */
@OpenDashboardTest
class DashboardListsTest {

    private static final String TASK = DashboardTestApplication.TASK;
    private static final Pattern KEY =
            Pattern.compile("data-testid=\"timeout\" data-task=\"[^\"]*\" data-key=\"([^\"]+)\"");

    @Autowired
    JdbcDurableTimer durable;

    @RegisterExtension
    final DashboardMvc mvc = new DashboardMvc();

    private String page(String url) throws Exception {
        return mvc.page(get(url));
    }

    private static List<String> keys(String page) {
        List<String> keys = new ArrayList<>();
        Matcher m = KEY.matcher(page);
        while (m.find()) {
            keys.add(m.group(1));
        }
        return keys;
    }

    private static String link(String page, String rel) {
        Matcher m = Pattern.compile("data-testid=\"page-" + rel + "\" rel=\"" + (rel.equals("next") ? "next" : "prev")
                        + "\" href=\"([^\"]+)\"")
                .matcher(page);
        return m.find() ? m.group(1).replace("&amp;", "&") : null;
    }

    @Test
    void pendingPagesOf50GoForwardAndBackByKeyset() throws Exception {
        Instant first = Instant.now().plus(Duration.ofDays(1));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            String key = "page-" + (1000 + i);
            durable.schedule(TASK, key, first.plusSeconds(i));
            expected.add(key);
        }

        String one = page("/wheel-timer/pending?task=" + TASK);
        assertThat(keys(one)).containsExactlyElementsOf(expected.subList(0, 50));
        assertThat(link(one, "previous")).isNull();
        String two = page(link(one, "next"));
        assertThat(keys(two)).containsExactlyElementsOf(expected.subList(50, 100));
        String three = page(link(two, "next"));
        assertThat(keys(three)).containsExactlyElementsOf(expected.subList(100, 120));
        assertThat(link(three, "next")).isNull();
        assertThat(keys(page(link(three, "previous")))).containsExactlyElementsOf(expected.subList(50, 100));
        assertThat(keys(page(link(two, "previous")))).containsExactlyElementsOf(expected.subList(0, 50));
        assertThat(link(one, "next"))
                .doesNotContain("offset")
                .contains("afterAt=")
                .contains("afterKey=page-1049");

        durable.cancelAll(TASK, expected);
    }

    @Test
    void theTaskRowLinksToItsLists() throws Exception {
        String overview = page("/wheel-timer");
        assertThat(overview)
                .contains("data-testid=\"pending-link\" href=\"/wheel-timer/pending?task=" + TASK + "\"")
                .contains("data-testid=\"failed-link\" href=\"/wheel-timer/failed?task=" + TASK + "\"");
    }
}
