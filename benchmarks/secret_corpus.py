"""A corpus of secrets as people paste them into chats, and of ordinary text that is not one.

Each positive is (message, the secret in it): after redaction the secret must be gone. The
values are made up (card numbers are standard test numbers that pass the Luhn check).
"""

from __future__ import annotations

PEM_BODY = (
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
    "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
)

POSITIVES: tuple[tuple[str, str], ...] = (
    ("my openai key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"),
    (
        "use sk-ant-api03-abcdefghijklmnopqrstuvwx for claude",
        "sk-ant-api03-abcdefghijklmnopqrstuvwx",
    ),
    ("AWS id AKIAIOSFODNN7EXAMPLE in the config", "AKIAIOSFODNN7EXAMPLE"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "aws secret key is Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876",
        "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876",
    ),
    (
        "token ghp_16C7e42F292c6912E7710c838347Ae178B4a for CI",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    ("slack xoxb-123456789012-abcdefghijklmn", "xoxb-123456789012-abcdefghijklmn"),
    ("maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("client secret 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", "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"),
    (
        "Azure: DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq",
    ),
    (
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=q8ZPFmN0xb3kC9Yv4Jt2Lw7Rs1Ue6Ha5Gd0Io3Pn=",
        "q8ZPFmN0xb3kC9Yv4Jt2Lw7Rs1Ue6Ha5Gd0Io3Pn",
    ),
    (
        "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sig=abcDEF123%2Bghi456JKL789mno",
        "abcDEF123%2Bghi456JKL789mno",
    ),
    ("my password is hunter2x", "hunter2x"),
    ("Password: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("PASSWORD=correcthorsebattery", "correcthorsebattery"),
    ("pw: s3cr3tpass", "s3cr3tpass"),
    ("the wifi pwd is 8675309jenny", "8675309jenny"),
    ("passwd = letmein99", "letmein99"),
    ("...ssword: quietstorm42", "quietstorm42"),
    ("My Passphrase is purple-monkey-dishwasher", "purple-monkey-dishwasher"),
    ("api_key: 9f8e7d6c5b4a3210", "9f8e7d6c5b4a3210"),
    ("the API key is 0123456789abcdef0123", "0123456789abcdef0123"),
    ("card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111"),
    ("charge 5500005555555559 please", "5500005555555559"),
    ("amex 3782-822463-10005", "3782-822463-10005"),
    (f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----", PEM_BODY[:40]),
    (f"here is the key\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}", PEM_BODY[-40:]),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ),
    ("Authorization: Bearer abcdef0123456789abcdef0123456789", "abcdef0123456789abcdef0123456789"),
    ("postgres://admin:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"),
    ("Server=tcp:db.acme.net;Database=app;User Id=sa;Password=Pa55w0rd!;", "Pa55w0rd!"),
    ("mongodb+srv://svc:m0ng0pass@cluster0.example.net/test", "m0ng0pass"),
    ("stripe key sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("rk_test_51HxYzAbCdEfGhIjKlMnOpQrSt for the webhook", "51HxYzAbCdEfGhIjKlMnOpQrSt"),
    ("HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("gitlab: glpat-xY7zA1b2C3d4E5f6G7h8", "xY7zA1b2C3d4E5f6G7h8"),
    (
        "//registry.npmjs.org/:_authToken=npm_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
        "aB3dE5fG7hI9jK1l",
    ),
    ("SG.aBcDeFgHiJkLmNoPqRsT.uVwXyZ0123456789aBcDeFgHiJkLmNoPqRs", "uVwXyZ0123456789aBcD"),
    (
        "bot token 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
        "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
    ),
    (
        "post to https://hooks.slack.com/services/T0AB12CD3/B0EF45GH6/aBcDeFgHiJkLmNoPqRsTuVwX",
        "aBcDeFgHiJkLmNoPqRsTuVwX",
    ),
    ("https://discord.com/api/webhooks/112233445566778899/aBc-DeF_gHiJkL", "aBc-DeF_gHiJkL"),
    ("curl -H 'Authorization: Basic YWRtaW46czNjcjN0UGFzcw=='", "YWRtaW46czNjcjN0UGFzcw"),
    ("the wifi code is SunnyDay42", "SunnyDay42"),
    ("the door code is 4711#", "4711#"),
    ("my passcode is 739201", "739201"),
    ("mein Passwort ist Geheim123", "Geheim123"),
)

NEGATIVES: tuple[str, ...] = (
    "I forgot my password again, can you remind me how to reset it?",
    "The token ring network was replaced in 1998.",
    "My secret to good bread is a long cold proof.",
    "Call me at 555-0100 after 6pm.",
    "Order #123456789 shipped on 2024-03-15.",
    "The meeting is in room 4111 on the 11th floor.",
    "We sold 1,250,000 units in 2023 and 1,410,000 in 2024.",
    "Use the --password flag to set it interactively.",
    "Version 3.11.7 fixed the bug reported in issue 4521.",
    "The API key rotation policy is every 90 days.",
    "Her phone number is +1 415 555 0132.",
    "ISBN 978-0-306-40615-7 is the edition I have.",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "The train leaves at 10:45 from platform 3.",
    "We need a basic authorization flow for the admin pages.",
    "The door code is on the sticky note, ask Priya.",
    "Our code is reviewed before every merge.",
    "Thread-safe code is easier to reason about.",
    "The safe code is something we discussed",
    "Writing type-safe code: always annotate",
    "The door code is written on the sticky note.",
    "The alarm code is broken again",
    "The passcode is expired",
    "the wifi code istanbul",
)
