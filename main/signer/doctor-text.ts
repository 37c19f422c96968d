/**
 * The token doctor's words, in English and Hindi, per finding code. Placeholders in braces are filled by
 * doctorText(); values (names, paths, dates) are inserted as they are, in both languages.
 */
import type { DoctorCode, DoctorText } from '../../common/desktop-doctor.js';

interface Entry {
  readonly summary: DoctorText;
  readonly advice: DoctorText;
}

const RESET_CLOCK: DoctorText = {
  en: 'Set the date and time to be set automatically (Windows: Settings > Time & language; Linux: timedatectl set-ntp true; macOS: System Settings > General > Date & Time), then sign again.',
  hi: 'दिनांक और समय को अपने-आप सेट होने दें (Windows: Settings > Time & language; Linux: timedatectl set-ntp true; macOS: System Settings > General > Date & Time), फिर दोबारा हस्ताक्षर करें।',
};

const UNBLOCK: DoctorText = {
  en: "Unblock the PIN with the token vendor's tool and the SO (admin) PIN, or ask the certifying authority that issued the token.",
  hi: 'टोकन कंपनी के टूल और SO (एडमिन) PIN से PIN अनब्लॉक करें, या टोकन देने वाले प्रमाणन प्राधिकरण (CA) से संपर्क करें।',
};

const TEXT: Readonly<Record<DoctorCode, Entry>> = {
  middleware_installed: {
    summary: { en: 'The {product} driver is installed ({path}).', hi: '{product} ड्राइवर इंस्टॉल है ({path})।' },
    advice: { en: 'Nothing to do.', hi: 'कुछ करने की ज़रूरत नहीं।' },
  },
  middleware_folder_only: {
    summary: {
      en: 'The {product} software seems installed ({path}), but Mohar does not know the name of its PKCS#11 library.',
      hi: '{product} सॉफ़्टवेयर इंस्टॉल लगता है ({path}), पर Mohar उसकी PKCS#11 लाइब्रेरी का नाम नहीं जानता।',
    },
    advice: {
      en: 'Find its PKCS#11 library (.so, .dll or .dylib) in that folder and name it with --module or MOHAR_PKCS11_MODULES.',
      hi: 'उस फ़ोल्डर में उसकी PKCS#11 लाइब्रेरी (.so, .dll या .dylib) ढूँढें और उसे --module या MOHAR_PKCS11_MODULES से बताएँ।',
    },
  },
  middleware_missing: {
    summary: { en: 'No driver found for: {products}.', hi: 'इनके ड्राइवर नहीं मिले: {products}।' },
    advice: {
      en: 'If your token is one of these, install its driver (middleware) from the token vendor or your certifying authority, then start Mohar again.',
      hi: 'अगर आपका टोकन इनमें से है, तो टोकन कंपनी या अपने प्रमाणन प्राधिकरण से उसका ड्राइवर (मिडलवेयर) इंस्टॉल करें, फिर Mohar दोबारा चालू करें।',
    },
  },
  middleware_none: {
    summary: {
      en: 'No token driver (PKCS#11 module) is installed.',
      hi: 'कोई टोकन ड्राइवर (PKCS#11 मॉड्यूल) इंस्टॉल नहीं है।',
    },
    advice: {
      en: 'Install the driver of your token (ePass2003, ProxKey, mToken, SafeNet…) from its vendor, or name its library with --module or MOHAR_PKCS11_MODULES.',
      hi: 'अपने टोकन (ePass2003, ProxKey, mToken, SafeNet…) का ड्राइवर उसकी कंपनी से इंस्टॉल करें, या उसकी लाइब्रेरी --module या MOHAR_PKCS11_MODULES से बताएँ।',
    },
  },
  module_load_failed: {
    summary: { en: 'The driver {path} could not be loaded: {error}', hi: 'ड्राइवर {path} लोड नहीं हो सका: {error}' },
    advice: {
      en: 'Install the driver again; on a 64-bit computer use the 64-bit driver.',
      hi: 'ड्राइवर दोबारा इंस्टॉल करें; 64-बिट कंप्यूटर पर 64-बिट ड्राइवर का उपयोग करें।',
    },
  },
  no_token: {
    summary: { en: 'No token is inserted.', hi: 'कोई टोकन लगा हुआ नहीं है।' },
    advice: {
      en: 'Insert the token. If it is inserted, try another USB port and check that its driver is installed.',
      hi: 'टोकन लगाएँ। अगर लगा है, तो दूसरा USB पोर्ट आज़माएँ और देखें कि उसका ड्राइवर इंस्टॉल है।',
    },
  },
  pin_locked: {
    summary: { en: 'The PIN of this token is locked.', hi: 'इस टोकन का PIN लॉक हो गया है।' },
    advice: UNBLOCK,
  },
  pin_final_try: {
    summary: {
      en: 'One more wrong PIN locks this token.',
      hi: 'एक और गलत PIN डालने पर यह टोकन लॉक हो जाएगा।',
    },
    advice: {
      en: 'Type the PIN carefully. If you are not sure of it, do not try: ask the certifying authority how to reset it.',
      hi: 'PIN ध्यान से डालें। अगर पक्का पता नहीं है तो कोशिश न करें: प्रमाणन प्राधिकरण से उसे रीसेट करने का तरीका पूछें।',
    },
  },
  pin_count_low: {
    summary: { en: 'A wrong PIN was entered: few tries are left.', hi: 'गलत PIN डाला गया था: कुछ ही कोशिशें बाकी हैं।' },
    advice: {
      en: 'Type the PIN carefully; a correct PIN resets the count.',
      hi: 'PIN ध्यान से डालें; सही PIN डालने पर गिनती फिर से शुरू हो जाती है।',
    },
  },
  pin_to_be_changed: {
    summary: { en: 'The token asks for its PIN to be changed.', hi: 'टोकन कहता है कि उसका PIN बदला जाए।' },
    advice: {
      en: "Change the PIN with the token vendor's tool before signing.",
      hi: 'हस्ताक्षर से पहले टोकन कंपनी के टूल से PIN बदलें।',
    },
  },
  certificate_signing: {
    summary: {
      en: 'For signing (non-repudiation), valid until {notAfter}.',
      hi: 'हस्ताक्षर के लिए (non-repudiation), {notAfter} तक मान्य।',
    },
    advice: { en: 'Choose this certificate to sign documents.', hi: 'दस्तावेज़ों पर हस्ताक्षर के लिए यही प्रमाणपत्र चुनें।' },
  },
  certificate_encryption: {
    summary: { en: 'For encryption only, not for signing.', hi: 'केवल एन्क्रिप्शन के लिए, हस्ताक्षर के लिए नहीं।' },
    advice: {
      en: 'Do not choose it to sign; choose the signing certificate of the token.',
      hi: 'हस्ताक्षर के लिए इसे न चुनें; टोकन का हस्ताक्षर वाला प्रमाणपत्र चुनें।',
    },
  },
  certificate_no_key: {
    summary: {
      en: 'The token holds no private key for this certificate.',
      hi: 'टोकन में इस प्रमाणपत्र की निजी कुंजी (private key) नहीं है।',
    },
    advice: {
      en: 'It cannot sign. If it should, ask the certifying authority to download the certificate onto the token again.',
      hi: 'इससे हस्ताक्षर नहीं हो सकता। अगर होना चाहिए, तो प्रमाणन प्राधिकरण से प्रमाणपत्र को टोकन पर फिर से डाउनलोड करवाएँ।',
    },
  },
  certificate_expired: {
    summary: { en: 'The certificate expired on {notAfter}.', hi: 'प्रमाणपत्र {notAfter} को समाप्त हो गया।' },
    advice: {
      en: 'Renew the DSC with your certifying authority; an expired certificate cannot sign.',
      hi: 'अपने प्रमाणन प्राधिकरण से DSC का नवीनीकरण कराएँ; समाप्त प्रमाणपत्र से हस्ताक्षर नहीं हो सकता।',
    },
  },
  certificate_expiring: {
    summary: {
      en: 'The certificate expires in {days} days, on {notAfter}.',
      hi: 'प्रमाणपत्र {days} दिनों में, {notAfter} को समाप्त हो जाएगा।',
    },
    advice: {
      en: 'Apply for the renewal now, so you can keep signing.',
      hi: 'अभी नवीनीकरण के लिए आवेदन करें, ताकि हस्ताक्षर करते रह सकें।',
    },
  },
  certificate_not_yet_valid: {
    summary: { en: 'The certificate is valid only from {notBefore}.', hi: 'प्रमाणपत्र {notBefore} से ही मान्य है।' },
    advice: {
      en: 'Wait until then, or check that the computer clock is right.',
      hi: 'तब तक रुकें, या जाँचें कि कंप्यूटर की घड़ी सही है।',
    },
  },
  chain_untrusted: {
    summary: {
      en: 'Its chain does not reach a CCA India root (issuer: {issuer}).',
      hi: 'इसकी श्रृंखला (chain) CCA India रूट तक नहीं पहुँचती (जारीकर्ता: {issuer})।',
    },
    advice: {
      en: 'Servers that check DSC trust will refuse this signature. Use a certificate from a CA licensed by the CCA, or install the CA certificates your certifying authority provides.',
      hi: 'DSC भरोसा जाँचने वाले सर्वर यह हस्ताक्षर अस्वीकार करेंगे। CCA से लाइसेंस प्राप्त CA का प्रमाणपत्र उपयोग करें, या अपने प्रमाणन प्राधिकरण के दिए CA प्रमाणपत्र इंस्टॉल करें।',
    },
  },
  clock_off: {
    summary: {
      en: "This computer's clock is {minutes} minutes {direction} the time of {source}.",
      hi: 'इस कंप्यूटर की घड़ी {source} के समय से {minutes} मिनट {directionHi} है।',
    },
    advice: RESET_CLOCK,
  },
  clock_behind_certificate: {
    summary: {
      en: "This computer's clock is behind: the certificate {name} was issued on {notBefore}, after the computer's today.",
      hi: 'इस कंप्यूटर की घड़ी पीछे है: प्रमाणपत्र {name} {notBefore} को जारी हुआ, जो कंप्यूटर की आज की तारीख के बाद है।',
    },
    advice: RESET_CLOCK,
  },
};

function fill(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

export function doctorText(
  code: DoctorCode,
  values: Readonly<Record<string, string | number>> = {},
): { summary: DoctorText; advice: DoctorText } {
  const entry = TEXT[code];
  return {
    summary: { en: fill(entry.summary.en, values), hi: fill(entry.summary.hi, values) },
    advice: { en: fill(entry.advice.en, values), hi: fill(entry.advice.hi, values) },
  };
}
