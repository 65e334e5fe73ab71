package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The read-only dashboard (the default) in headless Chromium: no write control on the lists, and a
 * write forged from the page itself (a POST without the form) answered 403, changing nothing.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DashboardReadOnlyBrowserTest {

    private static final String TASK = DashboardTestApplication.TASK;

    @RegisterExtension
    static final Browser browser = new Browser();

    @Autowired
    JdbcDurableTimer durable;

    @Autowired
    DashboardTestApplication.Payments payments;

    @Test
    void noWriteControlIsRenderedAndAForgedWriteIsRefused() {
        payments.giveUp(durable, "order-stuck");
        durable.schedule(TASK, "order-waiting", Duration.ofHours(1));

        browser.load("/failed?task=" + TASK);
        assertThat(browser.driver.findElements(By.cssSelector("[data-key='order-stuck']")))
                .hasSize(1);
        assertThat(browser.driver.findElements(By.cssSelector("[data-testid=retry], [data-testid=discard], form")))
                .isEmpty();
        browser.load("/pending?task=" + TASK);
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
