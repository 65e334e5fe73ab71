package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The read-only dashboard (the default) in headless Chromium: no write control on the lists, and a
 * write forged from the page itself (a POST without the form) answered 403, changing nothing.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DashboardReadOnlyBrowserTest {

    private static final String TASK = DashboardTestApplication.TASK;

    private static Browser browser;

    @LocalServerPort
    int port;

    @Autowired
    JdbcDurableTimer durable;

    @Autowired
    DashboardTestApplication.Payments payments;

    @BeforeAll
    static void openBrowser() throws IOException {
        browser = new Browser();
    }

    @AfterAll
    static void closeBrowser() throws IOException {
        browser.close();
    }

    @Test
    void noWriteControlIsRenderedAndAForgedWriteIsRefused() {
        payments.failing.set(true);
        durable.schedule(TASK, "order-stuck", Duration.ZERO);
        durable.schedule(TASK, "order-waiting", Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> durable.findFailed(TASK, "order-stuck").isPresent());
        payments.failing.set(false);
        String base = "http://127.0.0.1:" + port + "/wheel-timer";

        browser.driver.get(base + "/failed?task=" + TASK);
        assertThat(browser.driver.findElements(By.cssSelector("[data-key='order-stuck']")))
                .hasSize(1);
        assertThat(browser.driver.findElements(By.cssSelector("[data-testid=retry], [data-testid=discard], form")))
                .isEmpty();
        browser.driver.get(base + "/pending?task=" + TASK);
        assertThat(browser.driver.findElements(By.cssSelector("[data-key='order-waiting']")))
                .hasSize(1);
        assertThat(browser.driver.findElements(By.cssSelector("[data-testid=cancel], [data-testid=run-now], form")))
                .isEmpty();

        Object status = browser.driver.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('/wheel-timer/actions/discard', {method: 'POST', headers: {'Content-Type':"
                + " 'application/x-www-form-urlencoded'}, body: 'task=" + TASK + "&key=order-stuck'})"
                + ".then(r => done(r.status), e => done(String(e)));");
        assertThat(status).isEqualTo(403L);
        assertThat(durable.findFailed(TASK, "order-stuck"))
                .as("nothing changed")
                .isPresent();
    }
}
