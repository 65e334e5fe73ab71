package io.wheeltimer.dashboard;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.RequestBuilder;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/** What the MockMvc tests of the dashboard send: requests from an address, pages read whole, writes. */
final class DashboardRequests {

    private DashboardRequests() {}

    /** Has a request come from {@code address}, as the dashboard's access rules see it. */
    static RequestPostProcessor from(String address) {
        return request -> {
            request.setRemoteAddr(address);
            return request;
        };
    }

    /** The page {@code request} gets, which must answer 200. */
    static String page(MockMvc mvc, RequestBuilder request) throws Exception {
        return mvc.perform(request)
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getContentAsString();
    }

    /** A write, {@code action} on the timeout {@code key} of the test application's task; no token yet. */
    static MockHttpServletRequestBuilder write(String action, String key) {
        return post("/wheel-timer/actions/" + action)
                .param("task", DashboardTestApplication.TASK)
                .param("key", key);
    }
}
